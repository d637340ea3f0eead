package textnorm

import (
	_ "embed"
	"strconv"
	"strings"
	"sync"
)

// punktEnglishTSV holds the parameters of NLTK's english Punkt model; see punkt_english_README.md
// for where they come from and how the file was made. One entry a line, tab-separated:
// "a TYPE" abbreviation type, "c TYPE1 TYPE2" collocation, "s TYPE" sentence starter,
// "o TYPE FLAGS" orthographic context.
//
//go:embed punkt_english.tsv
var punktEnglishTSV string

// Orthographic context flags, as in nltk/tokenize/punkt.py.
const (
	orthoBegUC = 1 << 1
	orthoMidUC = 1 << 2
	orthoUnkUC = 1 << 3
	orthoBegLC = 1 << 4
	orthoMidLC = 1 << 5
	orthoUnkLC = 1 << 6
	orthoUC    = orthoBegUC | orthoMidUC | orthoUnkUC
	orthoLC    = orthoBegLC | orthoMidLC | orthoUnkLC
)

// punktModel is PunktParameters: what training learned about the language.
type punktModel struct {
	abbrevs      map[string]bool
	collocations map[[2]string]bool
	starters     map[string]bool
	ortho        map[string]int
}

// punktEnglish parses the embedded english model once, on first use; it is never modified.
var punktEnglish = sync.OnceValue(func() *punktModel {
	m, err := parsePunktModel(punktEnglishTSV)
	if err != nil {
		panic("textnorm: embedded punkt model: " + err.Error())
	}
	return m
})

// parsePunktModel reads the tab-separated model format described at punktEnglishTSV.
func parsePunktModel(data string) (*punktModel, error) {
	m := &punktModel{
		abbrevs:      map[string]bool{},
		collocations: map[[2]string]bool{},
		starters:     map[string]bool{},
		ortho:        make(map[string]int, 1<<15),
	}
	for n, line := range strings.Split(strings.TrimSuffix(data, "\n"), "\n") {
		f := strings.Split(line, "\t")
		ok := true
		switch {
		case f[0] == "a" && len(f) == 2:
			m.abbrevs[f[1]] = true
		case f[0] == "c" && len(f) == 3:
			m.collocations[[2]string{f[1], f[2]}] = true
		case f[0] == "s" && len(f) == 2:
			m.starters[f[1]] = true
		case f[0] == "o" && len(f) == 3:
			v, err := strconv.Atoi(f[2])
			m.ortho[f[1]], ok = v, err == nil
		default:
			ok = false
		}
		if !ok {
			return nil, &punktModelError{Line: n + 1, Text: line}
		}
	}
	return m, nil
}

// punktModelError reports a malformed line of a Punkt model file.
type punktModelError struct {
	Line int
	Text string
}

func (e *punktModelError) Error() string {
	return "line " + strconv.Itoa(e.Line) + ": malformed entry " + strconv.Quote(e.Text)
}
