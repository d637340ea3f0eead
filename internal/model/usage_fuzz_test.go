package model

import (
	"math"
	"slices"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// usageCount is a count as a provider's GenerationInfo may hold it, of Go type kind%5: int,
// int32, int64, float64 or float32; kind 5 leaves it out, and 6 gives it as a string (no count).
func usageCount(n int64, kind uint8) (any, bool) {
	switch kind % 7 {
	case 0:
		return int(n), true
	case 1:
		return int32(n), true
	case 2:
		return n, true
	case 3:
		return float64(n), true
	case 4:
		return float32(n), true
	case 6:
		return "12", true
	}
	return nil, false
}

// FuzzUsageFromInfo fills two of langchaingo's key families of a GenerationInfo, and a cached
// count, and holds UsageFromInfo to its doc: the first family with a non-zero count wins, a
// missing count is zero, a total above input and output counts the rest as output, Anthropic's
// cache counts add to its input (the read ones cached), and the cached count is at most the
// input's. Counts of realistic size (under 2^40) give exactly that;
// any count gives no panic and a cached count at most the input's.
func FuzzUsageFromInfo(f *testing.F) {
	f.Add(uint8(0), int64(10), int64(5), int64(15), uint8(0), uint8(1), int64(0), int64(0), int64(0), int64(4), uint8(0))
	f.Add(uint8(1), int64(7), int64(3), int64(0), uint8(2), uint8(2), int64(1), int64(1), int64(2), int64(0), uint8(0))
	f.Add(uint8(2), int64(7), int64(3), int64(100), uint8(3), uint8(0), int64(9), int64(9), int64(9), int64(20), uint8(3))
	f.Add(uint8(3), int64(0), int64(0), int64(0), uint8(5), uint8(1), int64(4), int64(0), int64(0), int64(1), uint8(6))
	f.Add(uint8(0), int64(math.MaxInt64), int64(1), int64(math.MaxInt64), uint8(2), uint8(3), int64(-1), int64(3), int64(0), int64(-5), uint8(2))
	f.Add(uint8(1), int64(10), int64(30), int64(0), uint8(0), uint8(1), int64(0), int64(0), int64(0), int64(20000), uint8(14))
	f.Add(uint8(1), int64(10), int64(30), int64(0), uint8(0), uint8(1), int64(0), int64(0), int64(0), int64(3000), uint8(21))
	f.Fuzz(func(t *testing.T, fam uint8, in, out, total int64, kind uint8, fam2 uint8, in2, out2, total2, cached int64, ckind uint8) {
		fam, fam2 = fam%uint8(len(usageKeys)), fam2%uint8(len(usageKeys))
		info := map[string]any{}
		put := func(key string, n int64, kind uint8) {
			if v, ok := usageCount(n, kind); ok && key != "" {
				info[key] = v
			}
		}
		// The second family first, so that where the two share a key the first family's count is
		// the one the map holds.
		for i, n := range []int64{in2, out2, total2} {
			put(usageKeys[fam2][i], n, kind/7)
		}
		for i, n := range []int64{in, out, total} {
			put(usageKeys[fam][i], n, kind+uint8(i))
		}
		put(cacheKeys[ckind/7%uint8(len(cacheKeys))], cached, ckind)
		got := UsageFromInfo(info)
		if again := UsageFromInfo(info); !sameUsage(again, got) {
			t.Fatalf("UsageFromInfo(%v) = %+v, then %+v", info, got, again)
		}
		if got.InputTokens >= 0 && (got.CachedInputTokens < 0 || got.CachedInputTokens > got.InputTokens) {
			t.Fatalf("UsageFromInfo(%v) = %+v, want 0 ≤ cached ≤ input", info, got)
		}
		for _, v := range info {
			if n, ok := countOf(v); ok && (n < 0 || n >= 1<<40) {
				return // no exact expectation for such counts
			}
		}
		if want := docUsage(info); !sameUsage(got, want) {
			t.Fatalf("UsageFromInfo(%v) = %+v, want %+v", info, got, want)
		}
	})
}

// cacheKeys are the keys under which a GenerationInfo gives prompt-cache counts: cachedKeys, and
// Anthropic's, which it counts apart from its input.
var cacheKeys = append(slices.Clone(cachedKeys), "CacheReadInputTokens", "CacheCreationInputTokens")

// docUsage is what UsageFromInfo's doc says info gives, for counts that are not negative.
func docUsage(info map[string]any) record.Usage {
	for _, k := range usageKeys {
		in, okIn := countOf(info[k[0]])
		out, okOut := countOf(info[k[1]])
		total, okTotal := countOf(info[k[2]])
		if okTotal && total > in+out {
			out, okOut = total-in, true
		}
		var read, created int64
		if k[0] == "InputTokens" { // Anthropic's cache counts, apart from its input
			created, _ = countOf(info["CacheCreationInputTokens"])
			read, _ = countOf(info["CacheReadInputTokens"])
			in += created + read
		}
		if !(okIn || okOut) || in+out == 0 {
			continue
		}
		u := record.Usage{InputTokens: int(in), OutputTokens: int(out), CachedInputTokens: int(read), CacheWriteInputTokens: int(created)}
		for _, c := range cachedKeys {
			if u.CachedInputTokens > 0 {
				break
			}
			if n, ok := countOf(info[c]); ok && n > 0 {
				u.CachedInputTokens = int(min(n, in))
				break
			}
		}
		return u
	}
	return record.Usage{}
}

// countOf is v as a count, when it is a number.
func countOf(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	case int64:
		return n, true
	case float64:
		return int64(n), !math.IsNaN(n)
	case float32:
		return int64(n), !math.IsNaN(float64(n))
	}
	return 0, false
}

func sameUsage(a, b record.Usage) bool {
	return a.InputTokens == b.InputTokens && a.OutputTokens == b.OutputTokens && a.CachedInputTokens == b.CachedInputTokens
}
