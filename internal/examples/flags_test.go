package examples

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// optionName is a flag's name at the start of a line of urfave/cli's options list, with its
// alias after a comma: "   --help, -h   show help".
var optionName = regexp.MustCompile(`(?m)^\s+(--?[a-z0-9-]+)(?:, (--?[a-z0-9-]+))?`)

// commandSep cuts a shell line into the commands of its pipes and lists.
var commandSep = regexp.MustCompile(`\|\||&&|[|;&]`)

// TestREADMEFlags checks the flags of every command line in the README's sh and make blocks,
// those that need a key or a server included, which TestREADME cannot run: each flag must be one
// that the command's --help lists (qa-judge agree's its own), so that an example does not outlive
// a renamed flag. The flags of the examples that run are checked by running them too.
func TestREADMEFlags(t *testing.T) {
	bin := commands(t)
	known := map[string]map[string]bool{}
	flags := func(cmd string) map[string]bool {
		if f, ok := known[cmd]; ok {
			return f
		}
		args := strings.Fields(cmd)
		out, err := exec.Command(filepath.Join(bin, args[0]), append(args[1:], "--help")...).Output()
		if err != nil {
			t.Fatalf("%s --help: %v", cmd, err)
		}
		f := map[string]bool{}
		_, opts, _ := strings.Cut(string(out), "OPTIONS:\n")
		for _, m := range optionName.FindAllStringSubmatch(opts, -1) {
			f[m[1]], f[m[2]] = true, m[2] != ""
		}
		known[cmd] = f
		return f
	}
	blocks, lines := codeBlocks(t, filepath.Join(root, "README.md"), "sh", "make")
	checked := 0
	for k, block := range blocks {
		text := strings.ReplaceAll(block, "\\\n", " ")
		for _, line := range strings.Split(text, "\n") {
			if i := strings.Index(line, " #"); i >= 0 {
				line = line[:i]
			}
			for _, c := range commandSep.Split(line, -1) {
				words := strings.Fields(c)
				if len(words) == 0 || !strings.HasPrefix(words[0], "qa-") {
					continue
				}
				cmd := words[0]
				if cmd == "qa-judge" && len(words) > 1 && words[1] == "agree" {
					cmd = "qa-judge agree"
				}
				for _, w := range words[1:] {
					name, _, _ := strings.Cut(w, "=")
					if !strings.HasPrefix(name, "-") || name == "-" {
						continue
					}
					checked++
					if !flags(cmd)[name] {
						t.Errorf("README.md:%d: %s has no flag %s: %s", lines[k], cmd, name, strings.TrimSpace(c))
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no flag of a README command line was found")
	}
}
