package english

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// metrics is qa-score's --metrics names in their order, its groups last, as its usage error
// lists them.
var metrics = strings.Split("em,f1,squad2_em,squad2_f1,hotpot_em,hotpot_f1,rouge1,rouge2,rougeL,"+
	"rouge1_nostem,rouge2_nostem,rougeL_nostem,bleu1,bleu2,bleu4,meteor,meteor_nosyn,cmrc_em,cmrc_f1,"+
	"locomo_f1,sp_em,sp_f1,joint_em,joint_f1,judge_score,sbert,bertscore_p,bertscore_r,bertscore_f1,"+
	"accuracy,precision,recall,f1_score,auc,pn,pairwise_acc,mrr,map,chunk_p,chunk_r,chunk_f1,"+
	"perplexity,corpus_bleu,gen_eval_bleu,chunk,classification,pairwise,ranking", ",")

var (
	formats   = []string{"hotpotqa", "squad", "cmrc2018", "locomo", "longmemeval", "evalearn", "evalearn-results", "jsonl", "csv", "records"}
	providers = []string{"openai", "anthropic", "ollama", "googleai", "extractive"}
	// modes is qa-judge's --mode names; judgeFlags and predictFlags some of the commands' flags.
	modes        = []string{"auto", "longmemeval", "locomo-continuous", "mem0", "evalearn", "adversarial", "unanswerable", "rules"}
	judgeFlags   = []string{"mode", "name", "provider", "model", "base-url", "api-key-file", "route", "prompt", "prompt-format", "parse-retries"}
	predictFlags = []string{"provider", "model", "base-url", "api-key-file", "key-expansion", "locomo-variant", "judge-model", "judge-base-url", "judge-api-key-file"}
	variants     = []string{"gpt-4-turbo", "gpt-4", "gpt-4-32k", "gpt-3.5-turbo", "gpt-3.5-turbo-4k", "gpt-3.5-turbo-8k"}
)

func TestSuggest(t *testing.T) {
	for _, tc := range []struct {
		name  string
		known []string
		want  string
	}{
		{"F1", metrics, "f1"},         // case alone
		{"rougel", metrics, "rougeL"}, // case alone, though rouge1 is one substitution away too
		{"ROUGEL_NOSTEM", metrics, "rougeL_nostem"},
		{"blue4", metrics, "bleu4"},               // two letters swapped: one edit
		{"meteor_nosym", metrics, "meteor_nosyn"}, // one substitution
		{"meteor_nosyn", metrics, "meteor_nosyn"}, // a known name is its own suggestion
		{"Bleu-4", metrics, "bleu4"},              // one deletion once case is set aside
		// The nearest name, one insertion away; f1 (SQuAD v1.1) is six edits away, and the list the
		// message gives shows it.
		{"squad_f1", metrics, "squad2_f1"},
		{"rouge", metrics, "rouge1"},                 // rouge1, rouge2 and rougeL tie: the first
		{"bertscore", metrics, "bertscore_p"},        // two insertions; bertscore_r ties, and comes later
		{"clasification", metrics, "classification"}, // a group name
		{"perplexty", metrics, "perplexity"},
		{"zzz", metrics, ""},                    // three edits from em, map, auc, ...
		{"x", metrics, ""},                      // two edits from em and f1, in a name of one letter
		{"f2", metrics, ""},                     // one edit, but half of a two-letter name
		{"em1", metrics, "em"},                  // one edit in three letters
		{"accuracy_score", metrics, "accuracy"}, // six edits, but scikit-learn's name: a word added
		{"", metrics, ""},
		{"josnl", formats, "jsonl"},
		{"json", formats, "jsonl"},
		{"hotpot", formats, "hotpotqa"},
		{"evalearn_results", formats, "evalearn-results"},
		{"squad2", formats, "squad"},
		{"tsv", formats, "csv"}, // one edit in three letters
		{"openi", providers, "openai"},
		{"antropic", providers, "anthropic"},
		{"Ollama", providers, "ollama"},
		{"gemini", providers, ""},
		{"anything", nil, ""},
		// A word left out or added, when no name is within the edit distance.
		{"locomo", modes, "locomo-continuous"},
		{"longmemeval-judge", modes, "longmemeval"},
		{"rule", []string{"rules-approximate", "mem0/gpt-4o"}, "rules-approximate"}, // the part within one edit
		{"judge", metrics, "judge_score"},
		// A judgment's mode for its MODE/MODEL name, as qa-judge names one run with --model.
		{"evalearn", []string{"evalearn/gpt-4o", "other"}, "evalearn/gpt-4o"},
		{"longmemeval", []string{"longmemeval/gpt-4o-2024-08-06"}, "longmemeval/gpt-4o-2024-08-06"},
		{"evalearn", []string{"evalearn/gpt-4o", "evalearn/o3"}, ""},                        // two models: a guess
		{"locomo", []string{"locomo-continuous", "locomo-continuous"}, "locomo-continuous"}, // one name listed twice
		{"text", []string{"json", "evalearn-text"}, "evalearn-text"},
		{"judge-model", judgeFlags, "model"},
		{"judge-base-url", judgeFlags, "base-url"},
		{"api-key", predictFlags, "api-key-file"},
		{"key", predictFlags, ""},   // a part of three letters says too little
		{"f1_macro", metrics, ""},   // f1 is two letters
		{"gpt-3.5", variants, ""},   // the start of four names
		{"turbo-16k", variants, ""}, // no name ends or starts so
		{"LOCOMO", modes, "locomo-continuous"},
		{"café", []string{"cafe", "CAFÉ"}, "CAFÉ"}, // case-insensitive beats one edit, in any script
		{"éé", []string{"ée"}, ""},                 // lengths count characters, not bytes
	} {
		if got := Suggest(tc.name, tc.known); got != tc.want {
			t.Errorf("Suggest(%q, %d names) = %q, want %q", tc.name, len(tc.known), got, tc.want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"abc", "abc", 0},
		{"blue4", "bleu4", 1},
		{"kitten", "sitting", 3},
		{"ab", "ba", 1},
		{"ca", "abc", 3}, // no substring is edited twice: the unrestricted distance is 2
		{"héllo", "hello", 1},
		{"日本語", "日本", 1},
	} {
		if got := distance([]rune(tc.a), []rune(tc.b)); got != tc.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := distance([]rune(tc.b), []rune(tc.a)); got != tc.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	for _, tc := range []struct {
		name, want string
	}{
		{"F1", `; did you mean "f1"?`},
		{"zzz", ""},
	} {
		if got := DidYouMean(tc.name, metrics); got != tc.want {
			t.Errorf("DidYouMean(%q, metrics) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func FuzzSuggest(f *testing.F) {
	for _, s := range []string{"F1", "rougel", "blue4", "meteor_nosym", "squad_f1", "zzz", "x", "", "café"} {
		f.Add(s, "rougeL", "f1")
	}
	f.Fuzz(func(t *testing.T, name, k1, k2 string) {
		known := append(slices.Clip(metrics), k1, k2)
		got := Suggest(name, known)
		if got != "" && !slices.Contains(known, got) {
			t.Fatalf("Suggest(%q, ...) = %q, not a known name", name, got)
		}
		if want := suggestPlain(name, known); got != want {
			t.Fatalf("Suggest(%q, ...) = %q, want %q", name, got, want)
		}
	})
}

// suggestPlain is Suggest written out without its shortcut: every known name's distance.
func suggestPlain(name string, known []string) string {
	for _, k := range known {
		if strings.EqualFold(name, k) {
			return k
		}
	}
	a := []rune(strings.ToLower(name))
	best, bestD := "", -1
	for _, k := range known {
		if d := distance(a, []rune(strings.ToLower(k))); bestD < 0 || d < bestD {
			best, bestD = k, d
		}
	}
	if bestD < 0 || bestD > 2 || 2*bestD >= utf8.RuneCountInString(strings.ToLower(name)) {
		return affix(name, known)
	}
	return best
}

func ExampleDidYouMean() {
	known := []string{"em", "f1", "bleu1", "bleu4", "rougeL"}
	for _, name := range []string{"blue4", "ROUGEL", "x"} {
		fmt.Printf("unknown metric %q%s\n", name, DidYouMean(name, known))
	}
	// Output:
	// unknown metric "blue4"; did you mean "bleu4"?
	// unknown metric "ROUGEL"; did you mean "rougeL"?
	// unknown metric "x"
}
