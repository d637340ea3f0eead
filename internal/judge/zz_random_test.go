package judge

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

func TestZZRandom(t *testing.T) {
	f, err := os.Open(os.Getenv("QA_JD"))
	if err != nil {
		t.Skip()
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	cats := map[string]int{}
	shown := map[string]int{}
	for sc.Scan() {
		var c struct {
			Reply string
			Mem0  any
			Magma any
			Lme   float64
		}
		json.Unmarshal(sc.Bytes(), &c)
		check := func(name string, want any, v Verdict, err error) {
			got := any(v.Score)
			if err != nil {
				got = "error"
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				k := fmt.Sprintf("%s want %v got %v", name, want, got)
				cats[k]++
				if shown[k]++; shown[k] <= 3 {
					t.Logf("%s: %q err=%v", k, c.Reply, err)
				}
			}
		}
		v, err := ParseMem0(c.Reply)
		check("mem0", c.Mem0, v, err)
		v, err = ParseMAGMA(c.Reply)
		check("magma", c.Magma, v, err)
		v, err = ParseYesNo(c.Reply)
		check("lme", c.Lme, v, err)
	}
	for k, n := range cats {
		t.Errorf("%s: %d", k, n)
	}
}
