// Package fmatest checks that a package's floating-point figures do not depend on the CPU: Go may
// fuse x*y + z into one instruction that rounds once where the CPU has one (arm64, ppc64le, s390x,
// riscv64, and amd64 built with GOAMD64=v3), so that a sum of products moves in the last bit there
// and differs from amd64's and Python's. The cure is an explicit conversion, float64(x*y) + z,
// which the Go spec says rounds and so prevents fusion. Check compiles the package under test for
// arm64, maps every fused instruction in the listing to its source line, and fails unless that
// line calls math.FMA, the fusions that are meant (they round once on every machine). It is
// imported by tests only.
//
// Note: the line of a fused instruction is that of the addition; the product may sit on another
// line, as a variable or an inlined function's result, and a line that calls math.FMA may hide a
// second, implicit fusion, so such lines round their other products too. Comparing with a build
// under the compiler's -d=fmahash=n, which turns implicit fusion off, would see that second fusion,
// but it leans on a flag kept for debugging the compiler.
package fmatest

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// fused matches an arm64 fused multiply-add in a -gcflags=-S listing, with its source position:
// `0x0018 00024 (/path/summary.go:70)	FMADDD	F0, F1, F2, F0`.
var fused = regexp.MustCompile(`\(([^()]+\.go):(\d+)\)\t(FN?M(?:ADD|SUB)[DS])\t`)

// Check compiles the package in the current folder (the package under test) for arm64 with
// -gcflags=-S and reports, one error per source line, every fused multiply-add whose line does not
// call math.FMA. It skips under -short, as the compilation takes seconds.
func Check(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("compiles the package for arm64")
	}
	out := listing(t)
	found, funcs := fusions(out)
	if funcs == 0 {
		t.Fatalf("go build -gcflags=-S for arm64 listed no function: the check sees no assembly\n%s", out)
	}
	src := sources{}
	for _, pos := range slices.Sorted(maps.Keys(found)) {
		file, n := splitPos(pos)
		text, err := src.line(file, n)
		if err != nil {
			t.Errorf("%s: fused multiply-add in %s: %v", relative(pos), strings.Join(found[pos], ", "), err)
			continue
		}
		if !callsFMA(text) {
			t.Errorf("%s: fused multiply-add in %s: round the products added here, float64(x*y) + z, or call math.FMA\n\t%s",
				relative(pos), strings.Join(found[pos], ", "), strings.TrimSpace(text))
		}
	}
}

// fusions maps the source position (file:line) of each fused multiply-add in an assembly listing
// to the functions that hold one there, and counts the functions listed.
func fusions(listing []byte) (found map[string][]string, funcs int) {
	found, fn := map[string][]string{}, ""
	for line := range strings.Lines(string(listing)) {
		if f := strings.Fields(line); len(f) > 1 && f[1] == "STEXT" {
			fn, funcs = shortName(f[0]), funcs+1
			continue
		}
		if m := fused.FindStringSubmatch(line); m != nil {
			pos := m[1] + ":" + m[2]
			if !slices.Contains(found[pos], fn) {
				found[pos] = append(found[pos], fn)
			}
		}
	}
	return found, funcs
}

// listing returns the compiler's assembly listing of the package in the current folder for arm64.
// GOFLAGS is cleared: `make race` runs the tests with -race, which an arm64 build without cgo
// refuses, and the check is about the code as released.
func listing(t *testing.T) []byte {
	t.Helper()
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command, to compile the package for arm64: %v", err)
	}
	cmd := exec.Command(gotool, "build", "-gcflags=-S", ".")
	cmd.Env = append(cmd.Environ(), "GOARCH=arm64", "CGO_ENABLED=0", "GOFLAGS=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("go build -gcflags=-S for arm64: %v\n%s", err, out.Bytes())
	}
	return out.Bytes()
}

// shortName drops the import path's folders from a function's symbol: metric.ddMul.
func shortName(sym string) string {
	name, _, _ := strings.Cut(sym, "[")
	return sym[strings.LastIndexByte(name, '/')+1:]
}

// callsFMA reports whether a line of Go calls math.FMA outside a comment.
func callsFMA(line string) bool {
	code, _, _ := strings.Cut(line, "//")
	return strings.Contains(code, "math.FMA(")
}

// sources reads source files once and returns their lines.
type sources map[string][]string

func (s sources) line(file string, n int) (string, error) {
	lines, ok := s[file]
	if !ok {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", err
		}
		lines = strings.Split(string(b), "\n")
		s[file] = lines
	}
	if n < 1 || n > len(lines) {
		return "", fmt.Errorf("no line %d in %s", n, file)
	}
	return lines[n-1], nil
}

func splitPos(pos string) (string, int) {
	i := strings.LastIndexByte(pos, ':')
	n, _ := strconv.Atoi(pos[i+1:])
	return pos[:i], n
}

// relative writes a position as a path from the current folder, where it can.
func relative(pos string) string {
	wd, err := os.Getwd()
	if err != nil {
		return pos
	}
	if r, err := filepath.Rel(wd, pos); err == nil {
		return r
	}
	return pos
}
