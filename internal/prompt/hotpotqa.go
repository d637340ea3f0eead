package prompt

import (
	"strings"

	"github.com/qapipe/qapipe/pkg/record"
)

// HotpotQAInput is the MetaGPT AFlow template name for HotpotQA.
const HotpotQAInput = "metagpt_aflow/hotpotqa_input.txt"

// HotpotQA renders the AFlow HotpotQA input for rec: each passage's sentences joined with one space
// (titles dropped; a passage without sentences contributes its text), passages joined with "\n".
func HotpotQA(rec *record.Record) string {
	paras := make([]string, len(rec.Context))
	for i, p := range rec.Context {
		if p.Sentences != nil {
			paras[i] = strings.Join(p.Sentences, " ")
		} else {
			paras[i] = p.Text
		}
	}
	return Must(HotpotQAInput).MustFill(map[string]string{"context": strings.Join(paras, "\n"), "question": rec.Question})
}
