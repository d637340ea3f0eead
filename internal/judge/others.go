package judge

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/pkg/record"
)

// others counts the judgments a run passes through under its name that were made by another
// mode or model than the run would judge their records with, for a warning (as qa-predict
// counts the predictions of another provider or model that it passes through): without
// --force, a run with a new judge keeps them. It is safe for concurrent use.
type others struct {
	mu    sync.Mutex
	by    map[string]int  // the judgments kept, by their mode/model
	asked map[string]bool // the mode/model this run would have judged those records with
}

// note counts jg, the judgment of rec that j's run passes through, when another mode or model
// made it than j would judge rec with, or, under a --prompt, another prompt (its prompt_sha256).
// A judgment that names neither is not counted, nor one of a record whose judgment j cannot tell:
// its plan fails or skips it, or calls a model j lacks.
func (o *others) note(j *Judge, rec *record.Record, jg *record.Judgment) {
	mode, mdl, sha, ok := j.maker(rec)
	if !ok || jg.Mode == "" && jg.Model == "" {
		return
	}
	by, asked := maker(jg.Mode, jg.Model), maker(mode, mdl)
	if madeBy(jg, mode, mdl) {
		if !strings.HasPrefix(mode, ModeCustom) || jg.PromptSHA256 == "" || jg.PromptSHA256 == sha {
			return
		}
		by, asked = by+" with prompt "+shortSHA(jg.PromptSHA256), asked+" with prompt "+shortSHA(sha)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.by == nil {
		o.by, o.asked = map[string]int{}, map[string]bool{}
	}
	o.by[by]++
	o.asked[asked] = true
}

// shortSHA is a prompt's sha256 as a warning names it: its first 12 hex digits.
func shortSHA(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// maker returns the mode, model and prompt sha256 of the judgment j would give rec (model "" for
// a rule), and false when it cannot tell: rec's plan fails or skips it, or calls a model j has not.
func (j *Judge) maker(rec *record.Record) (mode, mdl, sha string, ok bool) {
	p, err := j.Plan(rec)
	switch {
	case err != nil || p.Skip:
		return "", "", "", false
	case p.Rule != nil:
		return p.Mode, "", p.PromptSHA256, true
	}
	mdl = cmp.Or(p.Model, j.Model)
	return p.Mode, mdl, p.PromptSHA256, mdl != ""
}

// madeBy reports whether jg could be a judgment of mode and mdl: the same names, or a dated or
// tagged version of the model (model.VersionOf). A mode the judgment leaves out matches any.
func madeBy(jg *record.Judgment, mode, mdl string) bool {
	return (jg.Mode == "" || jg.Mode == mode) &&
		(jg.Model == mdl || mdl != "" && model.VersionOf(jg.Model, mdl))
}

// maker names a judgment's maker: mode/model, or either alone.
func maker(mode, mdl string) string {
	return strings.Trim(mode+"/"+mdl, "/")
}

// warn warns of the records passed through under name with a judgment of another mode or model;
// dry words it for a dry run, which passes nothing through.
func (o *others) warn(w io.Writer, name string, dry bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, k := range o.by {
		n += k
	}
	if n == 0 {
		return
	}
	passed := english.Count(n, "record passed", "records passed")
	if dry {
		passed = english.Count(n, "record would pass", "records would pass")
	}
	fmt.Fprintf(w, "qa-judge: warning: %s through keeping a judgment %q by %s, not by %s as asked: --force judges %s again, or another --name keeps both\n",
		passed, name, strings.Join(slices.Sorted(maps.Keys(o.by)), ", "), strings.Join(slices.Sorted(maps.Keys(o.asked)), ", "), english.Form(n, "it", "them"))
}
