package examples

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
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
		f := map[string]bool{}
		_, opts, _ := strings.Cut(helpText(t, bin, strings.Fields(cmd)...), "OPTIONS:\n")
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

// readmeFlag is a flag named in the README's prose or examples: "--" and a name not followed by more
// of a name, so that --max-tokens is not found inside --max-tokens-field.
var readmeFlag = regexp.MustCompile(`(?:^|[^\w-])(--[a-z][a-z0-9-]*[a-z0-9])(?:[^\w-]|$)`)

// TestREADMENamesEveryFlag checks the converse of TestREADMEFlags: every flag that a command's
// --help lists (qa-judge agree's too), but --help and --version, is named somewhere in the README,
// so that a user who reads the README alone learns of it. qa-score's --jobs had been in its --help
// only.
func TestREADMENamesEveryFlag(t *testing.T) {
	bin := commands(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, line := range strings.Split(string(readme), "\n") {
		for _, m := range readmeFlag.FindAllStringSubmatchIndex(line, -1) {
			named[line[m[2]:m[3]]] = true
		}
	}
	for _, args := range helpCommands {
		_, opts, _ := strings.Cut(helpText(t, bin, args...), "OPTIONS:\n")
		for _, m := range optionEntry.FindAllStringSubmatch(opts, -1) {
			flag, _, _ := strings.Cut(m[1], " ")
			flag = strings.TrimSuffix(flag, ",")
			if flag != "--help" && flag != "--version" && !named[flag] {
				t.Errorf("%s --help lists %s, which README.md never names", strings.Join(args, " "), flag)
			}
		}
	}
}

// TestHelpFlagsEnd checks that every command's list of options (qa-judge agree's too) ends alike:
// --strict and --max-line, how the input is read, which every command shares, then --help and
// --version (in either order: urfave/cli lists a subcommand's --version after its --help), so
// that each command's own flags come first and the shared ones are found in one place.
func TestHelpFlagsEnd(t *testing.T) {
	bin := commands(t)
	for _, args := range helpCommands {
		name := strings.Join(args, " ")
		_, opts, _ := strings.Cut(helpText(t, bin, args...), "OPTIONS:\n")
		var names []string
		for _, m := range optionName.FindAllStringSubmatch(opts, -1) {
			names = append(names, m[1])
		}
		end := names[max(0, len(names)-4):]
		if len(end) < 4 || !slices.Equal(end[:2], []string{"--strict", "--max-line"}) ||
			!slices.Equal(slices.Sorted(slices.Values(end[2:])), []string{"--help", "--version"}) {
			t.Errorf("%s --help: options end %q, want --strict, --max-line, then --help and --version", name, end)
		}
	}
}

// optionEntry is one option of urfave/cli's options list, its lines joined: the flag's name, its
// placeholder, its text, "(default: …)" and its variables, "[$QA_X]".
var optionEntry = regexp.MustCompile(`(?m)^   (--[a-z0-9-]+.*(?:\n {8,}\S.*)*)`)

// optionDefault is the "(default: …)" of an option's entry, which may differ where its meaning
// does not (qa-score's --bootstrap 1000, qa-learncurve's 0).
var optionDefault = regexp.MustCompile(`\s*\(default: [^)]*\)`)

// TestSharedFlagsAlike checks that a flag whose variable several commands read, and mean the same
// by, is described in the same words by each, placeholder included: an exported QA_BOOTSTRAP,
// QA_LEVEL or QA_SEED reaches qa-score, qa-judge agree and qa-learncurve alike, QA_STRICT and
// QA_MAX_LINE every command that reads records. qa-load's --strict and --max-line (items of a
// benchmark file) and --seed (of --sample), and qa-predict's and qa-judge's --seed (of their
// calls), say what they mean in their own words.
func TestSharedFlagsAlike(t *testing.T) {
	bin := commands(t)
	for _, group := range []struct {
		vars     []string
		commands [][]string
	}{
		{[]string{"QA_BOOTSTRAP", "QA_LEVEL", "QA_SEED"}, [][]string{{"qa-score"}, {"qa-judge", "agree"}, {"qa-learncurve"}}},
		{[]string{"QA_STRICT", "QA_MAX_LINE"}, [][]string{{"qa-predict"}, {"qa-judge"}, {"qa-judge", "agree"}, {"qa-score"}, {"qa-learncurve"}}},
	} {
		entries := map[string]map[string]string{} // variable, command: its option's entry
		for _, args := range group.commands {
			name := strings.Join(args, " ")
			_, opts, _ := strings.Cut(helpText(t, bin, args...), "OPTIONS:\n")
			for _, m := range optionEntry.FindAllStringSubmatch(opts, -1) {
				entry := strings.Join(strings.Fields(optionDefault.ReplaceAllString(m[1], "")), " ")
				for _, v := range group.vars {
					if strings.HasSuffix(entry, "[$"+v+"]") {
						if entries[v] == nil {
							entries[v] = map[string]string{}
						}
						entries[v][name] = entry
					}
				}
			}
		}
		for _, v := range group.vars {
			first := strings.Join(group.commands[0], " ")
			for _, args := range group.commands {
				name := strings.Join(args, " ")
				got, ok := entries[v][name]
				switch {
				case !ok:
					t.Errorf("%s --help: no option reads %s", name, v)
				case got != entries[v][first]:
					t.Errorf("%s --help: %s is read by\n\t%s\nwhere %s --help has\n\t%s", name, v, got, first, entries[v][first])
				}
			}
		}
	}
}

// optionVars is the "[$QA_X]" that ends an option's entry.
var optionVars = regexp.MustCompile(`\s*\[\$[A-Z0-9_, $]+\]$`)

// TestCallFlagsAlike checks that the flags of qa-predict's and qa-judge's calls that mean the same
// in both, each command reading its own variable (QA_CONCURRENCY, QA_JUDGE_CONCURRENCY), are
// described in the same words: both go through the same transport and the same ordered window.
// qa-predict's --concurrency did not say that the output order is kept, nor its --max-retries
// which failures are retried.
func TestCallFlagsAlike(t *testing.T) {
	bin := commands(t)
	entries := map[string]map[string]string{} // command, flag: its entry without its variables
	for _, prog := range []string{"qa-predict", "qa-judge"} {
		_, opts, _ := strings.Cut(helpText(t, bin, prog), "OPTIONS:\n")
		entries[prog] = map[string]string{}
		for _, m := range optionEntry.FindAllStringSubmatch(opts, -1) {
			entry := optionVars.ReplaceAllString(strings.Join(strings.Fields(m[1]), " "), "")
			name, _, _ := strings.Cut(entry, " ")
			entries[prog][name] = entry
		}
	}
	for _, flag := range []string{"--concurrency", "--max-retries", "--timeout", "--backoff", "--prices", "--progress"} {
		p, j := entries["qa-predict"][flag], entries["qa-judge"][flag]
		if p == "" || p != j {
			t.Errorf("%s: qa-predict --help has\n\t%s\nand qa-judge --help\n\t%s", flag, p, j)
		}
	}
}
