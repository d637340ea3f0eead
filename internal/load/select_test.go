package load

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

func testRecords(n int) []*record.Record {
	recs := make([]*record.Record, n)
	for i := range recs {
		recs[i] = &record.Record{Schema: 1, ID: fmt.Sprintf("q%03d", i), Type: []string{"a", "b"}[i%2]}
	}
	return recs
}

// selectIDs runs recs through s and returns the ids written.
func selectIDs(t *testing.T, s *Selection, recs []*record.Record) []string {
	t.Helper()
	var ids []string
	write := func(r *record.Record) error { ids = append(ids, r.ID); return nil }
	for _, r := range recs {
		more, err := s.Add(r, write)
		if err != nil {
			t.Fatal(err)
		}
		if !more {
			break
		}
	}
	if err := s.Flush(func(r *record.Record, _ Origin) error { return write(r) }); err != nil {
		t.Fatal(err)
	}
	return ids
}

func TestShardsPartition(t *testing.T) {
	recs := testRecords(300)
	seen := make(map[string]int)
	for i := 1; i <= 4; i++ {
		ids := selectIDs(t, &Selection{Shard: Shard{I: i, N: 4}}, recs)
		if len(ids) < 50 || len(ids) > 100 {
			t.Errorf("shard %d/4 has %d of 300 records, want about 75", i, len(ids))
		}
		for _, id := range ids {
			seen[id]++
		}
	}
	for _, r := range recs {
		if seen[r.ID] != 1 {
			t.Errorf("record %s is in %d shards, want 1", r.ID, seen[r.ID])
		}
	}
}

func TestSampleDeterministic(t *testing.T) {
	recs := testRecords(200)
	a := selectIDs(t, &Selection{Sample: 10, Seed: 3}, recs)
	rev := slices.Clone(recs)
	slices.Reverse(rev)
	b := selectIDs(t, &Selection{Sample: 10, Seed: 3}, rev)
	slices.Reverse(b)
	if !slices.Equal(a, b) {
		t.Errorf("sample depends on input order: %v vs %v", a, b)
	}
	if !slices.IsSorted(a) || len(a) != 10 {
		t.Errorf("sample = %v, want 10 ids in input order", a)
	}
	if c := selectIDs(t, &Selection{Sample: 10, Seed: 4}, recs); slices.Equal(a, c) {
		t.Errorf("seeds 3 and 4 give the same sample %v", a)
	}
	small := selectIDs(t, &Selection{Sample: 5, Seed: 3}, recs)
	for _, id := range small {
		if !slices.Contains(a, id) {
			t.Errorf("sample of 5 has %s, which the sample of 10 lacks", id)
		}
	}
}

func TestSelectOrder(t *testing.T) {
	recs := testRecords(50)
	tests := []struct {
		name string
		sel  Selection
		want []string
	}{
		{"limit", Selection{Limit: 3}, []string{"q000", "q001", "q002"}},
		{"types then limit", Selection{Types: []string{"b"}, Limit: 2}, []string{"q001", "q003"}},
		{"limit above count", Selection{Types: []string{"c"}, Limit: 2}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := selectIDs(t, &tt.sel, recs); !slices.Equal(got, tt.want) {
				t.Errorf("Select(%+v) = %v, want %v", tt.sel, got, tt.want)
			}
		})
	}
	sampled := selectIDs(t, &Selection{Sample: 10, Seed: 1, Limit: 4}, recs)
	all := selectIDs(t, &Selection{Sample: 10, Seed: 1}, recs)
	if !slices.Equal(sampled, all[:4]) {
		t.Errorf("sample then limit = %v, want the first 4 of %v", sampled, all)
	}
}

func TestParseShard(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Shard
		ok   bool
	}{{"1/4", Shard{1, 4}, true}, {"4/4", Shard{4, 4}, true}, {"0/4", Shard{}, false},
		{"5/4", Shard{}, false}, {"1", Shard{}, false}, {"a/b", Shard{}, false}, {"01/04", Shard{1, 4}, true},
		{"+1/4", Shard{}, false}, {"1/+4", Shard{}, false}, {"-1/4", Shard{}, false}} {
		got, err := ParseShard(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("ParseShard(%q) = %v, %v; want %v, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
	// A number past the largest int is said to be one, not an i/n whose i passes n.
	for _, in := range []string{"1/99999999999999999999", "99999999999999999999/99999999999999999999"} {
		if _, err := ParseShard(in); err == nil || !strings.Contains(err.Error(), "≤ n ≤ 9223372036854775807") {
			t.Errorf("ParseShard(%q) = %v; want an error that names the largest n", in, err)
		}
	}
}

// FuzzParseShard: ParseShard takes "i/n" with 1 ≤ i ≤ n and nothing else, an error quotes what
// it was given, and a shard it reads, written as "i/n", reads back the same.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"1/4", "4/4", "0/4", "5/4", "1", "a/b", "/", "1/", "-1/-1", "+1/04", "1/4/4", " 1/4",
		"9223372036854775807/9223372036854775807", "1/9223372036854775808", "１/４"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseShard(s)
		if err != nil {
			if got != (Shard{}) || !strings.Contains(err.Error(), strconv.Quote(s)) {
				t.Fatalf("ParseShard(%q) = %v, %v; want the zero Shard and an error quoting the input", s, got, err)
			}
			return
		}
		if got.I < 1 || got.I > got.N {
			t.Fatalf("ParseShard(%q) = %v, want 1 ≤ i ≤ n", s, got)
		}
		if again, err := ParseShard(fmt.Sprintf("%d/%d", got.I, got.N)); again != got || err != nil {
			t.Fatalf("ParseShard(%q) = %v, but %d/%d reads %v, %v", s, got, got.I, got.N, again, err)
		}
		if i, n, _ := strings.Cut(s, "/"); strings.Trim(i, "0123456789") != "" || strings.Trim(n, "0123456789") != "" {
			t.Fatalf("ParseShard(%q) = %v, want an error for what is not two decimal integers", s, got)
		}
	})
}

// FuzzParseTypes: --types' list comes back as distinct names, each trimmed and neither empty nor
// holding a comma, in the order first given, and reading them joined again gives them back.
func FuzzParseTypes(f *testing.F) {
	for _, s := range []string{"", ",", "bridge", "bridge,comparison", " bridge , comparison ,", "a,a,b,a", "组织, 概念定义",
		"single_hop,,multi_hop", "\t\n", "a\u00a0,b", "\xff,x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := ParseTypes(s)
		for i, typ := range got {
			if typ == "" || typ != strings.TrimSpace(typ) || strings.Contains(typ, ",") || slices.Contains(got[:i], typ) {
				t.Fatalf("ParseTypes(%q) = %q: item %q empty, untrimmed, with a comma or repeated", s, got, typ)
			}
		}
		if again := ParseTypes(strings.Join(got, ",")); !slices.Equal(again, got) {
			t.Fatalf("ParseTypes(%q) = %q, but its items joined read %q", s, got, again)
		}
	})
}
