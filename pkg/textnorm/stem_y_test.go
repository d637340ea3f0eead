package textnorm

import (
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
)

// isConsNLTK is NLTK 3.8's PorterStemmer._is_consonant, recursion and all.
func isConsNLTK(w []byte, i int) bool {
	switch w[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !isConsNLTK(w, i-1)
	}
	return true
}

// TestConsonants checks isCons, measure and containsVowel against NLTK's _is_consonant,
// _measure (the count of "vc" in the word's c/v sequence) and _contains_vowel on every word of
// 1 to 10 letters over a, y and b, which holds every run of y's after a vowel, a consonant or
// nothing.
func TestConsonants(t *testing.T) {
	const letters = "ayb"
	w := []byte{}
	var walk func()
	walk = func() {
		if len(w) > 0 {
			checkConsonants(t, w)
		}
		if len(w) == 10 || t.Failed() {
			return
		}
		for _, c := range []byte(letters) {
			w = append(w, c)
			walk()
			w = w[:len(w)-1]
		}
	}
	walk()
}

func checkConsonants(t *testing.T, w []byte) {
	t.Helper()
	var cv strings.Builder
	for i := range w {
		want := isConsNLTK(w, i)
		if got := isCons(w, i); got != want {
			t.Errorf("isCons(%q, %d) = %v, want %v", w, i, got, want)
		}
		if want {
			cv.WriteByte('c')
		} else {
			cv.WriteByte('v')
		}
	}
	if got, want := measure(w), strings.Count(cv.String(), "vc"); got != want {
		t.Errorf("measure(%q) = %d, want %d (%s)", w, got, want, cv.String())
	}
	if got, want := containsVowel(w), strings.Contains(cv.String(), "v"); got != want {
		t.Errorf("containsVowel(%q) = %v, want %v (%s)", w, got, want, cv.String())
	}
}

const envStemChild = "QAPIPE_STEM_SMALL_STACK"

// TestStemLongYRun stems words made of a million y's and a suffix in a child process whose
// goroutine stacks may not grow past 256 kB. The stemmer used to ask NLTK's recursive question
// of every letter, which went as deep as the run of y's is long and took n*n/2 steps for a run
// of n (a megabyte-long token would have taken half an hour); the child dies of a stack
// overflow if any step recurses per letter again, and would not finish if one walked the run
// for every letter.
func TestStemLongYRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestStemLongYRunChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), envStemChild+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestStemLongYRunChild") {
		t.Fatalf("child process: %v\n%.2000s", err, out)
	}
}

// TestStemLongYRunChild is the body of TestStemLongYRun's child. Two more y's in front of a
// run change no letter's class after them, and past a few letters no condition on the measure,
// so the stem of "yy"+w is "yy" followed by the stem of w: a long run's stem is its extra y's
// followed by the stem of a 20- or 21-letter run of the same parity.
func TestStemLongYRunChild(t *testing.T) {
	if os.Getenv(envStemChild) == "" {
		t.Skip("child process only")
	}
	debug.SetMaxStack(256 << 10)
	const n = 1 << 20
	for _, suffix := range []string{"", "y", "s", "ing", "ed", "eed", "ational", "ly", "ies"} {
		for _, short := range []int{20, 21} {
			extra := strings.Repeat("y", n-20) // even
			word := extra + strings.Repeat("y", short) + suffix
			want := extra + Stem(strings.Repeat("y", short)+suffix)
			if got := Stem(word); got != want {
				t.Errorf("Stem(y*%d + %q) has %d bytes, want %d", n-20+short, suffix, len(got), len(want))
			}
			if got := string(AppendStem(nil, word)); got != want {
				t.Errorf("AppendStem(nil, y*%d + %q) has %d bytes, want %d", n-20+short, suffix, len(got), len(want))
			}
		}
	}
}
