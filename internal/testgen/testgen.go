// Package testgen writes the generated benchmark inputs that the tests of several packages read:
// files in a benchmark's own layout, of a size the benchmark asks for, their text made up.
package testgen

import (
	"bytes"
	"fmt"
	"strings"
)

// SQuAD writes a SQuAD v2.0 file of articles, each of paragraphs that hold questions questions
// (one answer each, ids aApBqC) and a context of "Some words of a paragraph. " written words
// times; sep goes between a paragraph's questions.
func SQuAD(buf *bytes.Buffer, articles, paragraphs, questions, words int, sep string) {
	buf.WriteString(`{"version": "v2.0", "data": [`)
	for a := range articles {
		if a > 0 {
			buf.WriteString(", ")
		}
		fmt.Fprintf(buf, `{"title": "Article_%d", "paragraphs": [`, a)
		for p := range paragraphs {
			if p > 0 {
				buf.WriteString(", ")
			}
			buf.WriteString(`{"qas": [`)
			for q := range questions {
				if q > 0 {
					buf.WriteString(sep)
				}
				fmt.Fprintf(buf, `{"question": "Which word comes %d?", "id": "a%dp%dq%d", "answers": [{"text": "words", `+
					`"answer_start": 5}], "is_impossible": false}`, q, a, p, q)
			}
			fmt.Fprintf(buf, `], "context": "%s"}`, strings.Repeat("Some words of a paragraph. ", words))
		}
		buf.WriteString("]}")
	}
	buf.WriteString("]}")
}

// LongMemEval writes a LongMemEval file (a JSON list) of questions items, each with a haystack of
// sessions sessions of turns turns, user and assistant in turn, each turn "Some words of a long
// chat turn. " written words times.
func LongMemEval(buf *bytes.Buffer, questions, sessions, turns, words int) {
	buf.WriteString("[")
	for q := range questions {
		if q > 0 {
			buf.WriteString(", ")
		}
		var ids, haystack []string
		for s := range sessions {
			ids = append(ids, fmt.Sprintf(`"s%d_%d"`, q, s))
			var session []string
			for t := range turns {
				session = append(session, fmt.Sprintf(`{"role": "%s", "content": "%s"}`, []string{"user", "assistant"}[t%2],
					strings.Repeat("Some words of a long chat turn. ", words)))
			}
			haystack = append(haystack, "["+strings.Join(session, ", ")+"]")
		}
		fmt.Fprintf(buf, `{"question_id": "q%d", "question_type": "multi-session", "question": "How many?", "answer": 3, `+
			`"question_date": "2023/06/01 (Thu) 10:00", "haystack_session_ids": [%s], `+
			`"haystack_sessions": [%s], "answer_session_ids": ["s%d_1"]}`, q,
			strings.Join(ids, ", "), strings.Join(haystack, ", "), q)
	}
	buf.WriteString("]")
}
