package prompt

import (
	"hash/maphash"
	"slices"

	"github.com/qapipe/qapipe/internal/memo"
	"github.com/qapipe/qapipe/pkg/record"
)

// LoCoMoConversations reads the conversations of LoCoMo records for their queries, keeping the
// last few it read (within memo.Cache's bounds): each of a conversation's questions, some 200,
// carries the whole conversation, whose turns were parsed and rendered again for each of them.
// A conversation is kept by what LoCoMoSessions and LoCoMoSpeakers read of a record, so a record
// whose conversation differs in any byte of that gets its own. The zero value is ready to use,
// and its methods may be called concurrently; a nil *LoCoMoConversations keeps nothing.
type LoCoMoConversations struct {
	cache memo.Cache[locomoKey, *locomoConversation]
}

// locomoConversation is a record's conversation as its queries use it. It is not changed once
// read, so that the questions of one conversation share it.
type locomoConversation struct {
	sessions []LoCoMoSession
	s1, s2   string // LoCoMoSpeakers
	whole    string // LoCoMoContext(sessions)
}

// locomoKey is what LoCoMoSessions and LoCoMoSpeakers read of a record: each passage's date, text
// and raw turns, and the meta speakers as MetaString gives them.
type locomoKey struct {
	passages   []record.Passage
	a, b       string
	hasA, hasB bool
}

func locomoKeyOf(rec *record.Record) locomoKey {
	k := locomoKey{passages: rec.Context}
	k.a, k.hasA = rec.MetaString("speaker_a")
	k.b, k.hasB = rec.MetaString("speaker_b")
	return k
}

// Hash writes the key's passages and speakers.
func (k locomoKey) Hash(h *maphash.Hash) {
	for _, p := range k.passages {
		h.WriteString(p.Date)
		h.WriteByte(0)
		h.WriteString(p.Text)
		h.WriteByte(0)
		if turns, ok := p.Extra["turns"]; ok {
			h.WriteByte(1)
			h.Write(turns)
		}
		h.WriteByte(2)
	}
	for _, s := range [...]string{k.a, k.b} {
		h.WriteString(s)
		h.WriteByte(0)
	}
	if k.hasA {
		h.WriteByte(1)
	}
	if k.hasB {
		h.WriteByte(2)
	}
}

// Equal reports whether k and o read as the same conversation, byte for byte.
func (k locomoKey) Equal(o locomoKey) bool {
	return k.a == o.a && k.b == o.b && k.hasA == o.hasA && k.hasB == o.hasB &&
		slices.EqualFunc(k.passages, o.passages, func(p, q record.Passage) bool {
			pt, pok := p.Extra["turns"]
			qt, qok := q.Extra["turns"]
			return p.Date == q.Date && p.Text == q.Text && pok == qok && string(pt) == string(qt)
		})
}

// size is the bytes of the key's text, which the conversation's memory grows with.
func (k locomoKey) size() int {
	n := len(k.a) + len(k.b)
	for _, p := range k.passages {
		n += len(p.Date) + len(p.Text) + len(p.Extra["turns"])
	}
	return n
}

// read returns rec's conversation, read now or kept from an earlier call.
func (c *LoCoMoConversations) read(rec *record.Record) (*locomoConversation, error) {
	k := locomoKeyOf(rec)
	build := func() (*locomoConversation, int, error) {
		sessions, err := LoCoMoSessions(rec)
		if err != nil {
			return nil, 0, err
		}
		conv := &locomoConversation{sessions: sessions, whole: LoCoMoContext(sessions)}
		conv.s1, conv.s2 = LoCoMoSpeakers(rec, sessions)
		// The raw text, the parsed turns (about as large) and the rendered context.
		return conv, 2*k.size() + len(conv.whole), nil
	}
	if c == nil {
		conv, _, err := build()
		return conv, err
	}
	return c.cache.Get(k, build)
}

// context is the conversation of a query of questions: whole when maxLength is 0, else cut to
// what get_input_context leaves it of maxLength for a batch of batchSize (locomoBudget).
func (conv *locomoConversation) context(maxLength, batchSize int, convStart string, questions []string) (string, bool, error) {
	if maxLength == 0 {
		return conv.whole, false, nil
	}
	budget, err := locomoBudget(maxLength, batchSize, convStart, questions)
	if err != nil {
		return "", false, err
	}
	return LoCoMoContextWithin(conv.sessions, budget)
}

// same reports whether conv and o are one conversation with the same speakers.
func (conv *locomoConversation) same(o *locomoConversation) bool {
	return conv == o || conv.s1 == o.s1 && conv.s2 == o.s2 && slices.EqualFunc(conv.sessions, o.sessions, func(a, b LoCoMoSession) bool {
		return a.DateTime == b.DateTime && slices.Equal(a.Turns, b.Turns)
	})
}
