package extractor

import (
	"testing"

	"github.com/qapipe/qapipe/pkg/record"
)

// TestAnswerOptions: a question that ends in "X or Y" is answered with one of its options. When
// it asks which came first or last, the option whose best sentence has the earlier (or later)
// year; otherwise, or when the years are the same, the option the top sentences mention more,
// X on ties. An option of four words or more is still an option, and without a comma the left
// one is the capitalised run before " or ", or the one word there.
func TestAnswerOptions(t *testing.T) {
	museums := "The Museum of Modern Art opened in 1929. The Metropolitan Museum of Art opened in 1870."
	bands := "The Beatles were formed in 1960 in Liverpool. The Rolling Stones were formed in 1962 in London."
	checkAnswers(t, []answerCase{
		{"Which band was formed first, the Beatles or the Rolling Stones?", bands, "the Beatles"},
		{"Which band was formed later, the Beatles or the Rolling Stones?", bands, "the Rolling Stones"},
		{"Which band is the oldest, the Rolling Stones or the Beatles?", bands, "the Beatles"},
		{"Which museum is older, the Museum of Modern Art or the Metropolitan Museum of Art?", museums,
			"the Metropolitan Museum of Art"},
		// the same year: the option mentioned more by the top sentences
		{"Which was founded first, Acme or Zenith?",
			"Acme was founded in 1950. Zenith was founded in 1950. Acme is large.", "Acme"},
		// a tie: the first option
		{"Who won, Ann or Bob?", "Ann and Bob played.", "Ann"},
		{"Who won, Bob or Ann?", "Ann and Bob played.", "Bob"},
		// an option of stop words only is mentioned by no sentence
		{"Who won, Ann or them?", "Ann played. They won.", "Ann"},
		// the left option without a comma: the one word before " or "
		{"Is the sky blue or green?", "The sky is green today.", "green"},
		{"Is the sky blue or green?", "The sky is blue today.", "blue"},
		// a count is a number even when the question names two options
		{"How many goals did Ann or Bob score?", "Ann and Bob scored 7 goals.", "7"},
	})
}

// TestAnswerEntity: the entity taken is the longest run of capitalised words none of whose words
// the question has ("Ada" of its "Ada's" included), the first of two as long; "I'm" is no
// entity.
func TestAnswerEntity(t *testing.T) {
	checkAnswers(t, []answerCase{
		{"Who met at the park?", "at noon Ann Lee met Bob Ray at the park.", "Ann Lee"},
		{"Who was Ada's tutor?", "The tutor of Lady Ada Lovelace was Tom Smith.", "Tom Smith"},
		{"Who did Tom call?", "Tom said I'm calling the doctor.", "said I'm calling the doctor"},
	})
}

// TestAnswerChineseClause: of a Chinese sentence's clauses that share as many characters with the
// question, the first is read, and the run of characters not in the question is cut at 12.
func TestAnswerChineseClause(t *testing.T) {
	checkAnswers(t, []answerCase{
		{"猫做什么？", "猫吃鱼，猫喝水。", "吃鱼"},
		{"猫做什么？", "猫吃了一条非常非常非常大的鱼呢。", "吃了一条非常非常非常大的"},
	})
}

// TestAnswerSpeaker: a conversation turn's speaker, of up to three words, is no part of the
// sentence read, so it is not taken for the answer.
func TestAnswerSpeaker(t *testing.T) {
	checkAnswers(t, []answerCase{
		{"Where did she go?", "Caroline: I went to Paris.", "Paris"},
		{"Where did she go?", "Melanie Smith: I went to Paris.", "Paris"},
		{"Where did she go?", "Anna Maria Smith: I went to Paris.", "Paris"},
	})
}

// TestStem: a suffix is stripped only from a word that keeps more than three letters without
// it, so that short words ("cats", "uses", "bed") stay whole.
func TestStem(t *testing.T) {
	for _, tt := range []struct{ w, want string }{
		{"paints", "paint"}, {"painted", "paint"}, {"painting", "paint"},
		{"lovelace's", "lovelace"}, {"cats", "cats"}, {"uses", "uses"}, {"bed", "bed"},
		{"sing", "sing"}, {"boxes", "boxe"}, {"watches", "watch"},
	} {
		if got := stem(tt.w); got != tt.want {
			t.Errorf("stem(%q) = %q, want %q", tt.w, got, tt.want)
		}
	}
}

// answerCase is a question, the one passage it is asked over, and the answer Answer must give.
type answerCase struct{ q, text, want string }

// checkAnswers asks each case's question over its passage.
func checkAnswers(t *testing.T, cases []answerCase) {
	t.Helper()
	for _, tt := range cases {
		if got := Answer(tt.q, []record.Passage{{Text: tt.text}}); got != tt.want {
			t.Errorf("Answer(%q) over %q = %q, want %q", tt.q, tt.text, got, tt.want)
		}
	}
}
