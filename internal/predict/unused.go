package predict

import (
	"fmt"
	"io"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/command"
	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/pipeline"
	"github.com/qapipe/qapipe/pkg/record"
)

// Some flags set how the records of one kind are asked: LongMemEval's reader options, LoCoMo's
// batches and variant, and the prompt of the records that are no EvaLearn position. Which records
// the input holds is known only as they are read, so such a flag set while no record read is of
// its kind is warned of at the end, the records read counted; one that some record read used is
// not, whatever the others.
//
// Note: a warning at the first record of another kind was rejected: a later record may be of the
// flag's kind (LongMemEval records after others), and the flag then does its work.

// recordFlags is a group of flags that only some records use.
type recordFlags struct {
	set  []string                  // the flags set, as the warning names them: "--reading con from QA_READING"
	uses func(*record.Record) bool // whether a record uses them
	what func(n int) string        // what they set, and why no record read used them
	used bool                      // a record read used them
}

// flagUse counts the records read against the groups of recordFlags.
type flagUse struct {
	groups []*recordFlags
	read   int
}

// newFlagUse finds the flags of c that only some records use, among those set. Under --template,
// whose prompt replaces LongMemEval's and LoCoMo's, no record uses the flags that shape those:
// they are warned of on w at once. prompts is false for a provider that sends none (extractive),
// which drops all of them, promptFlags, with a warning of its own.
func newFlagUse(c *cli.Context, w io.Writer, prompts bool) *flagUse {
	u := &flagUse{}
	if !prompts {
		return u
	}
	if t := c.String("template"); t != "" {
		if set := givenFlags(c, append(slices.Clone(longMemEvalFlags), locomoFlags...)...); len(set) > 0 {
			fmt.Fprintf(w, "qa-predict: warning: %s %s nothing with --template %s%s: its prompt replaces LongMemEval's and LoCoMo's, which %s\n",
				english.List(set), english.Form(len(set), "does", "do"), t, command.FromEnv(c, "template"), english.Form(len(set), "it shapes", "they shape"))
		}
	} else {
		u.add(c, longMemEvalFlags, func(rec *record.Record) bool { return rec.InDataset("longmemeval") },
			func(n int) string {
				return english.Form(n, "it sets", "they set") + " how LongMemEval's reader asks longmemeval records, and none was read"
			})
		u.add(c, locomoFlags, func(rec *record.Record) bool { return rec.InDataset("locomo") },
			func(n int) string {
				return english.Form(n, "it sets", "they set") + " how LoCoMo's script asks locomo records, and none was read"
			})
	}
	u.add(c, []string{"system", "template"}, func(rec *record.Record) bool { return rec.Sequence == nil },
		func(int) string {
			return "EvaLearn's sequences are asked with EvaLearn's own prompts, and every record read is a position of one"
		})
	return u
}

// longMemEvalFlags are LongMemEval's reader options, and locomoFlags LoCoMo's.
var (
	longMemEvalFlags = []string{"retriever", "key-expansion", "reading", "history-format", "history-sessions", "user-only", "history-tokens"}
	locomoFlags      = []string{"batch-size", "locomo-variant"}
)

// add adds the group of the flags names, keeping those set, which the records that uses reports
// use; what says what they set.
func (u *flagUse) add(c *cli.Context, names []string, uses func(*record.Record) bool, what func(int) string) {
	g := &recordFlags{uses: uses, what: what, set: givenFlags(c, names...)}
	if len(g.set) > 0 {
		u.groups = append(u.groups, g)
	}
}

// givenFlags returns the flags of names given a value that sets something (given), as a warning
// names them.
func givenFlags(c *cli.Context, names ...string) []string {
	var set []string
	for _, name := range names {
		if given(c, name) {
			set = append(set, flagNamed(c, name))
		}
	}
	return set
}

// given reports whether flag name of c was given a value that sets something, on the command
// line or by its variable: the empty text (--system=, QA_SYSTEM= exported empty) and false
// (--user-only=false) set nothing, so they do nothing on any record and are not warned of.
func given(c *cli.Context, name string) bool {
	if !c.IsSet(name) {
		return false
	}
	switch v := c.Value(name).(type) {
	case string:
		return v != ""
	case bool:
		return v
	}
	return true
}

// flagNamed is how a warning names flag name of c: with its value, but for a true/false flag
// and --system's text, and the variable it came from.
func flagNamed(c *cli.Context, name string) string {
	s := "--" + name
	if v := c.Value(name); name != "system" {
		if _, ok := v.(bool); !ok {
			s += " " + fmt.Sprint(v)
		}
	}
	return s + command.FromEnv(c, name)
}

// see counts the records of src as they are read, and notes the groups they use; a nil u
// counts nothing.
func (u *flagUse) see(src pipeline.Source[*record.Record]) pipeline.Source[*record.Record] {
	if u == nil || len(u.groups) == 0 {
		return src
	}
	return func(yield func(*record.Record) error) error {
		return src(func(rec *record.Record) error {
			u.read++
			for _, g := range u.groups {
				g.used = g.used || g.uses(rec)
			}
			return yield(rec)
		})
	}
}

// warn writes to w a warning for each group of flags set that no record read used.
func (u *flagUse) warn(w io.Writer) {
	if u == nil || u.read == 0 {
		return
	}
	for _, g := range u.groups {
		if g.used {
			continue
		}
		fmt.Fprintf(w, "qa-predict: warning: %s did nothing on %s: %s\n", english.List(g.set),
			english.Count(u.read, "record", "records"), g.what(len(g.set)))
	}
}
