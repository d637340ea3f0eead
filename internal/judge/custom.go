package judge

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/model"
	"github.com/qapipe/qapipe/internal/prompt"
	"github.com/qapipe/qapipe/internal/python"
	"github.com/qapipe/qapipe/internal/textfile"
	"github.com/qapipe/qapipe/pkg/record"
	"github.com/qapipe/qapipe/pkg/textnorm"
)

// Output formats a custom judge prompt may declare.
const (
	FormatJSONScore = "json-score" // {"score": 0..1, "reasoning": "..."}, read with MAGMA's rule
	FormatLabel     = "label"      // {"label": "CORRECT"|"WRONG"}, read with mem0's rule
	FormatYesNo     = "yes-no"     // read with LongMemEval's rule
)

// CustomFormats are the output formats a custom judge prompt may declare, in the order --help lists them.
var CustomFormats = []string{FormatJSONScore, FormatLabel, FormatYesNo}

// Custom is a user's judge prompt with its declared output format.
type Custom struct {
	Path   string
	Text   string
	Format string
	SHA256 string
	// Unknown lists the `{name}` tokens of the prompt that are no placeholder, then the fields
	// str.format would fill that no placeholder is ({meta.category}, {answers[0]}): they are sent
	// as written, which is seldom what was meant ({gold} for {answer}).
	Unknown []string
	parse   func(string) (Verdict, error)
	// gold and rubric say the prompt holds {answer} or {answers}, and {rubric}: what it grades by.
	gold, rubric bool
}

// customPlaceholders are the tokens Plan replaces.
var customPlaceholders = []string{"id", "type", "question", "answer", "answers", "rubric", "prediction"}

// LoadCustom reads a custom judge prompt from path. The prompt is sent as one user message, with
// {id} {type} {question} {answer} (the first gold) {answers} (Python list) {rubric} {prediction}
// replaced in one pass.
func LoadCustom(path, format string) (*Custom, error) {
	b, err := textfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c := &Custom{Path: path, Text: string(b), Format: format}
	switch format {
	case FormatJSONScore:
		c.parse = ParseMAGMA
	case FormatLabel:
		c.parse = ParseMem0
	case FormatYesNo:
		c.parse = ParseYesNo
	default:
		return nil, fmt.Errorf("prompt format %q: want %s, %s or %s%s", format, FormatJSONScore, FormatLabel, FormatYesNo,
			english.DidYouMean(format, CustomFormats))
	}
	if !strings.Contains(c.Text, "{prediction}") {
		return nil, fmt.Errorf("prompt %s: no {prediction} placeholder", path)
	}
	for _, name := range prompt.Tokens(c.Text) {
		c.gold = c.gold || name == "answer" || name == "answers"
		c.rubric = c.rubric || name == "rubric"
		if !slices.Contains(customPlaceholders, name) {
			c.Unknown = append(c.Unknown, "{"+name+"}")
		}
	}
	for _, ref := range fieldRefs(c.Text) {
		if !slices.Contains(c.Unknown, ref) {
			c.Unknown = append(c.Unknown, ref)
		}
	}
	c.SHA256 = shaHex(c.Text)
	return c, nil
}

// fieldRef matches what Python's str.format reads as a replacement field that reaches into a
// value or converts it, or names it in letters beyond ASCII's, which no placeholder is: a name
// followed by attributes or indexes, a conversion or a format spec, with no white space
// ({meta.category}, {answers[0]}, {prediction!r}, {answer:>10}, {réponse}).
var fieldRef = regexp.MustCompile(`\{[\p{L}_][\p{L}\p{N}_]*(?:\.[\p{L}_][\p{L}\p{N}_]*|\[[^\[\]{}\s]*\])*(?:![rsa])?(?::[^{}\s]*)?\}`)

// fieldRefs returns the fields of text, in order of first appearance, that a prompt written for
// str.format would have filled and Render sends as written (a plain {name} is a token, Tokens').
func fieldRefs(text string) []string {
	var refs []string
	for _, m := range fieldRef.FindAllString(text, -1) {
		if len(prompt.Tokens(m)) == 0 && !slices.Contains(refs, m) {
			refs = append(refs, m)
		}
	}
	return refs
}

// Plan renders the custom prompt for rec. A prompt that grades by the gold answers ({answer},
// {answers}) or the rubric ({rubric}) fails a record that has none of what it grades by, as the
// protocols' judges fail it (errNoGold, ErrNoRubric): the judge would grade against an empty slot.
func (c *Custom) Plan(rec *record.Record, pred string) (Plan, error) {
	noGold, noRubric := len(rec.Answers) == 0, textnorm.Strip(rec.Rubric) == ""
	switch {
	case c.gold && c.rubric && noGold && noRubric:
		return Plan{}, fmt.Errorf("no gold answers (answers is missing or []) and no rubric: the --prompt %s grades by one or the other, and would grade against nothing", c.Path)
	case c.gold && !c.rubric && noGold:
		return Plan{}, fmt.Errorf("no gold answers (answers is missing or []): the --prompt %s grades by them ({answer}, {answers}), and would grade against nothing", c.Path)
	case c.rubric && !c.gold && noRubric:
		return Plan{}, fmt.Errorf("no rubric: the --prompt %s grades by {rubric}, and would grade against nothing", c.Path)
	}
	gold := ""
	if len(rec.Answers) > 0 {
		gold = rec.Answers[0]
	}
	text := prompt.Render(c.Text, map[string]string{
		"id": rec.ID, "type": rec.Type, "question": rec.Question, "answer": gold,
		"answers": python.StrList(rec.Answers), "rubric": rec.Rubric, "prediction": pred,
	})
	return Plan{Mode: ModeCustom + ":" + c.Format, Template: c.Path, PromptSHA256: c.SHA256, Temperature: temp(0),
		Messages: []model.Message{{Role: "user", Content: text}}, Parse: c.parse}, nil
}
