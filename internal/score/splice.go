package score

// This file writes a line back with its scores member set, byte for byte around it (see view.go).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/qapipe/qapipe/pkg/record"
)

// spliceScores returns line with its top-level scores member set to scores (removed when scores
// is empty). Every other member keeps its bytes, and the bytes around it; a duplicated scores key
// is replaced by one.
func spliceScores(line []byte, scores map[string]float64) ([]byte, error) {
	var val []byte
	if len(scores) > 0 {
		var err error
		if val, err = appendScores(nil, scores); err != nil {
			return nil, err
		}
	}
	return spliceMembers(line, member{"scores", val})
}

// member is a top-level member spliceMembers sets: val is its encoded value, nil to remove it.
type member struct {
	key string
	val []byte
}

// spliceMembers returns line with each of the given top-level members set (in place of the first
// of that key, the others of it dropped; a new one added at the end, in the order given) or
// removed. Every other member keeps its bytes, and the bytes around it.
func spliceMembers(line []byte, set ...member) ([]byte, error) {
	ms, err := record.Members(line)
	if err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		return nil, errors.New("empty object")
	}
	size := len(line)
	for _, m := range set {
		size += len(m.key) + len(m.val) + 4
	}
	out := make([]byte, 0, size)
	out = append(out, line[:ms[0].Start]...)
	first := true
	put := func(sep []byte, m member) {
		if !first {
			if len(sep) == 0 {
				sep = []byte(",")
			}
			out = append(out, sep...)
		}
		out = append(append(append(append(out, '"'), m.key...), `":`...), m.val...)
		first = false
	}
	done := make([]bool, len(set))
	for k, m := range ms {
		var sep []byte
		if k > 0 {
			sep = line[ms[k-1].End:m.Start]
		}
		i := slices.IndexFunc(set, func(s member) bool { return s.key == m.Key })
		switch {
		case i < 0:
			if !first {
				if len(sep) == 0 {
					sep = []byte(",")
				}
				out = append(out, sep...)
			}
			out = append(out, line[m.Start:m.End]...)
			first = false
		case set[i].val != nil && !done[i]:
			put(sep, set[i])
			done[i] = true
		}
	}
	for i, m := range set {
		if m.val != nil && !done[i] {
			put(nil, m)
		}
	}
	return append(out, line[ms[len(ms)-1].End:]...), nil
}

// appendScoreErrors appends errs as a JSON object with sorted keys, strings escaped as the record
// package writes them.
func appendScoreErrors(dst []byte, errs map[string]string) ([]byte, error) {
	dst = append(dst, '{')
	for i, k := range slices.Sorted(maps.Keys(errs)) {
		if i > 0 {
			dst = append(dst, ',')
		}
		for _, s := range []string{k, errs[k]} {
			b, err := record.Marshal(s)
			if err != nil {
				return nil, err
			}
			dst = append(append(dst, b...), ':')
		}
		dst = dst[:len(dst)-1]
	}
	return append(dst, '}'), nil
}

// appendScores appends scores as a JSON object with sorted keys and numbers written as
// encoding/json writes them.
func appendScores(dst []byte, scores map[string]float64) ([]byte, error) {
	keys := make([]string, 0, len(scores))
	for k := range scores {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		if plainKey(k) {
			dst = append(append(append(dst, '"'), k...), '"')
		} else {
			kb, err := json.Marshal(k)
			if err != nil {
				return nil, err
			}
			dst = append(dst, kb...)
		}
		dst = append(dst, ':')
		var err error
		if dst, err = appendFloat(dst, scores[k]); err != nil {
			return nil, fmt.Errorf("score %s: %w", k, err)
		}
	}
	return append(dst, '}'), nil
}

// plainKey reports whether k needs no escaping in JSON (and none of encoding/json's HTML escapes).
func plainKey(k string) bool {
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// encode returns line with the outcome's scores in it. When the line has no scores or
// score_errors member and the outcome no error (the usual case) the new member is written straight
// from the values, in sorted name order, and inserted before the closing brace; otherwise the old
// and new scores and errors are merged and the members replaced.
func (s *scorer) encode(line []byte, rec *record.Record, o outcome) ([]byte, error) {
	if rec.Scores != nil || rec.ScoreErrors != nil || len(o.errs) > 0 {
		s.write(rec, o)
		var scores, errs []byte
		var err error
		if len(rec.Scores) > 0 {
			if scores, err = appendScores(nil, rec.Scores); err != nil {
				return nil, err
			}
		}
		if len(rec.ScoreErrors) > 0 {
			if errs, err = appendScoreErrors(nil, rec.ScoreErrors); err != nil {
				return nil, err
			}
		}
		return spliceMembers(line, member{"scores", scores}, member{"score_errors", errs})
	}
	if o.failed {
		return line, nil
	}
	end := bytes.LastIndexByte(line, '}')
	if end < 0 {
		return nil, errors.New("not a JSON object")
	}
	out := append(getBuf(len(line)+s.memberSize), line[:end]...) // one buffer for line and member
	out = append(out, `,"scores":{`...)
	n := 0
	for _, k := range s.order {
		v := o.vals[k]
		if math.IsNaN(v) {
			continue
		}
		if n > 0 {
			out = append(out, ',')
		}
		out = append(append(append(out, '"'), s.sel.names[k]...), `":`...)
		var err error
		if out, err = appendFloat(out, v); err != nil {
			return nil, fmt.Errorf("score %s: %w", s.sel.names[k], err)
		}
		n++
	}
	if n == 0 {
		putBuf(out)
		return line, nil
	}
	return append(append(out, '}'), line[end:]...), nil
}

// appendFloat writes f as encoding/json does: the shortest representation that round-trips, in
// exponent form only below 1e-6 or from 1e21 up.
func appendFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("unsupported value %v", f)
	}
	switch f {
	case 0:
		return append(dst, '0'), nil
	case 1:
		return append(dst, '1'), nil
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// 1e-07 → 1e-7, as encoding/json does.
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, nil
}
