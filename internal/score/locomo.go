package score

import (
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/pkg/record"
)

// locomoTypes maps LoCoMo's category numbers to the record types qa-load gives them (the numbers
// are not in name order: 4 is single-hop).
var locomoTypes = map[int]string{1: "multi_hop", 2: "temporal", 3: "open_domain", 4: "single_hop", 5: "adversarial"}

// locomoCategory returns the LoCoMo category number of a LoCoMo record: meta.category (a number or
// a numeric string) when present, else the number behind the record's type.
func locomoCategory(rec *record.Record) (int, bool) {
	if !strings.EqualFold(rec.Dataset, "locomo") {
		return 0, false
	}
	if raw, ok := rec.Meta["category"]; ok {
		var n int
		if record.Unmarshal(raw, &n) == nil && locomoTypes[n] != "" {
			return n, true
		}
		var s string
		if record.Unmarshal(raw, &s) == nil {
			if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && locomoTypes[n] != "" {
				return n, true
			}
		}
	}
	for n, t := range locomoTypes {
		if t == rec.Type {
			return n, true
		}
	}
	return 0, false
}
