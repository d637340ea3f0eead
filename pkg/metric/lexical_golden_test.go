package metric

import (
	"strings"
	"testing"
)

// TestLexicalGolden checks every golden pair for each field this file family computes.
func TestLexicalGolden(t *testing.T) {
	checkFields(t, loadPairs(t), lexicalFields)
}

// TestRougeRandom checks random pairs scored by a restatement of rouge-score 0.1.2 with NLTK's
// Porter stemmer (testdata/README.md): Unicode that lowers to ASCII, glued words, inflections.
func TestRougeRandom(t *testing.T) {
	pairs := readPairs(t, "testdata/rouge_random.jsonl")
	if len(pairs) != 1000 {
		t.Fatalf("read %d pairs, want 1000", len(pairs))
	}
	var rouge []lexicalField
	for _, fd := range lexicalFields {
		if strings.HasPrefix(fd.name, "rouge") {
			rouge = append(rouge, fd)
		}
	}
	if len(rouge) != 6 {
		t.Fatalf("%d rouge fields, want 6", len(rouge))
	}
	checkFields(t, pairs, rouge)
}

// lexicalField is a golden field and how this package computes it.
type lexicalField struct {
	name string
	f    func(goldenPair) float64
}

var lexicalFields = []lexicalField{
	{"squad_em", func(p goldenPair) float64 { return SquadEM(p.Prediction, p.References) }},
	{"squad_f1", func(p goldenPair) float64 { return SquadF1(p.Prediction, p.References) }},
	{"squad2_em", func(p goldenPair) float64 { return Squad2EM(p.Prediction, p.References) }},
	{"squad2_f1", func(p goldenPair) float64 { return Squad2F1(p.Prediction, p.References) }},
	{"hotpot_em", func(p goldenPair) float64 { return HotpotEM(p.Prediction, p.References) }},
	{"hotpot_f1", func(p goldenPair) float64 { return HotpotF1(p.Prediction, p.References) }},
	{"rouge1_f", func(p goldenPair) float64 { return Rouge(p.Prediction, p.References, true).R1 }},
	{"rouge2_f", func(p goldenPair) float64 { return Rouge(p.Prediction, p.References, true).R2 }},
	{"rougeL_f", func(p goldenPair) float64 { return Rouge(p.Prediction, p.References, true).RL }},
	{"bleu1", func(p goldenPair) float64 { return BLEU(p.Prediction, p.References).B1 }},
	{"bleu2", func(p goldenPair) float64 { return BLEU(p.Prediction, p.References).B2 }},
	{"bleu4", func(p goldenPair) float64 { return BLEU(p.Prediction, p.References).B4 }},
	{"rouge1_f_nostem", func(p goldenPair) float64 { return Rouge(p.Prediction, p.References, false).R1 }},
	{"rouge2_f_nostem", func(p goldenPair) float64 { return Rouge(p.Prediction, p.References, false).R2 }},
	{"rougeL_f_nostem", func(p goldenPair) float64 { return Rouge(p.Prediction, p.References, false).RL }},
}

// checkFields checks every pair on each field; each pair must carry each field.
func checkFields(t *testing.T, pairs []goldenPair, fields []lexicalField) {
	for _, fd := range fields {
		t.Run(fd.name, func(t *testing.T) {
			n := checkGolden(t, pairs, fd.name, fd.f)
			if n != len(pairs) {
				t.Errorf("%s: compared %d pairs, want %d", fd.name, n, len(pairs))
			}
		})
	}
}
