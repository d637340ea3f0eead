//go:build unix

package clitest

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// ReaderGone is a command's main running in a child process whose stdout's reader went away
// before the first write, as under `| head -1` (see StartReaderGone).
type ReaderGone struct {
	cmd *exec.Cmd
	// Stderr receives each line the command writes to stderr, and is closed at its end.
	Stderr chan string
}

// StartReaderGone starts this test binary again to run only the test named test, which must
// begin with MainChild, as a command with args and stdin, its stdout a pipe whose read end is
// closed, and env (NAME=value) added to its environment. The test's cleanup kills it if it is
// still running.
func StartReaderGone(t *testing.T, test string, args []string, stdin string, env ...string) *ReaderGone {
	t.Helper()
	return startReaderGone(t, test, args, stdin, nil, env...)
}

// StartReaderGoneOn is StartReaderGone with the command's stderr the file given (a terminal:
// see Terminal), which the test reads itself; Stderr is then closed at once.
func StartReaderGoneOn(t *testing.T, test string, args []string, stdin string, stderr *os.File, env ...string) *ReaderGone {
	t.Helper()
	return startReaderGone(t, test, args, stdin, stderr, env...)
}

// StartStdoutOn is StartReaderGone with the command's stdout the file given (/dev/full, whose
// every write fails with ENOSPC, as on a full disk) in place of a pipe without a reader.
func StartStdoutOn(t *testing.T, test string, args []string, stdin string, stdout *os.File, env ...string) *ReaderGone {
	t.Helper()
	return startOn(t, test, args, stdin, stdout, nil, env...)
}

func startReaderGone(t *testing.T, test string, args []string, stdin string, stderr *os.File, env ...string) *ReaderGone {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // the reader is gone before the first write
	return startOn(t, test, args, stdin, w, stderr, env...)
}

// startOn starts the command with stdout w, which it closes once the command has it.
func startOn(t *testing.T, test string, args []string, stdin string, w, stderr *os.File, env ...string) *ReaderGone {
	t.Helper()
	p := &ReaderGone{cmd: MainCommand(test, args), Stderr: make(chan string, 64)}
	p.cmd.Env = append(p.cmd.Env, env...)
	p.cmd.Stdin = strings.NewReader(stdin)
	if stderr != nil {
		p.cmd.Stdout, p.cmd.Stderr = w, stderr
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		w.Close()
		close(p.Stderr)
		t.Cleanup(func() {
			p.cmd.Process.Kill()
			p.cmd.Wait()
		})
		return p
	}
	er, ew, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stdout, p.cmd.Stderr = w, ew
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	ew.Close()
	go func() {
		defer close(p.Stderr)
		sc := bufio.NewScanner(er)
		for sc.Scan() {
			p.Stderr <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		p.cmd.Wait()
	})
	return p
}

// Wait waits for the command to end, and returns its exit code and the lines it wrote to stderr
// that Stderr had not yet given.
func (p *ReaderGone) Wait(t *testing.T) (code int, stderr []string) {
	t.Helper()
	for l := range p.Stderr {
		stderr = append(stderr, l)
	}
	err := p.cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("exit %v; stderr %q", err, stderr)
	}
	return p.cmd.ProcessState.ExitCode(), stderr
}

// WaitSIGPIPE waits for the command to end, checks that it ended by SIGPIPE, as cat does when
// its reader goes away, and returns the lines it wrote to stderr that Stderr had not yet given.
func (p *ReaderGone) WaitSIGPIPE(t *testing.T) (stderr []string) {
	t.Helper()
	for l := range p.Stderr {
		stderr = append(stderr, l)
	}
	err := p.cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("exit %v, want SIGPIPE; stderr %q", err, stderr)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGPIPE {
		t.Errorf("exit %v, want SIGPIPE; stderr %q", err, stderr)
	}
	return stderr
}
