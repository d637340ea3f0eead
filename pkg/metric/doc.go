// Package metric implements QA scoring metrics as plain functions over strings and slices, each
// at parity with the benchmark's official script (SQuAD, HotpotQA, rouge-score, NLTK BLEU and
// METEOR, CMRC 2018, LoCoMo) and tested against golden vectors produced by that code; so are the
// corpus-level metrics (classification, ROC AUC, Pn and pairwise accuracy, conlleval chunks, MRR
// and MAP, perplexity, corpus BLEU), against scikit-learn 1.2, NLTK 3.8 and ERNIE-kit's
// definitions. The embedding metrics (the cosine behind sbert, BERTScore's greedy matching) take
// vectors, not text, and are checked on hand-computed cases of bert_score's formulas. Each
// function's comment names the code it reproduces. The golden tests hold every score within 1e-9
// of the reference's, and the classification figures and ROC AUC to the last bit.
//
// Texts are UTF-8, as Python's str is text: a byte that is not (which record.Reader refuses)
// reads as U+FFFD wherever a metric looks at characters, so two different invalid bytes read
// alike ("\xff" and "\xfe" match). Each metric tokenizes as its script does, which a caller
// should know before choosing one: SQuAD, HotpotQA and LoCoMo split normalised text at
// whitespace (punctuation and articles dropped); BLEU and METEOR split the lowercased text at
// whitespace alone, so "Paris." and "paris" differ; ROUGE keeps runs of ASCII letters and digits,
// so a text in Chinese or another script without them scores 0 (CMRC's metrics are for
// Chinese). A metric given no references scores 0, where most scripts raise, but for SQuAD
// v2.0's, which take the question as unanswerable then.
//
// METEOR's synonym stage reads WordNet 3.0, embedded in the binary (compressed, about 2 MB) and
// loaded on the first call that asks for synonyms: a fraction of a second and some 12 MB kept
// for the life of the program. PrepareMETEOR loads it ahead of time.
//
// The functions are safe for concurrent use. Scratch buffers come from a sync.Pool, one per call
// in flight; a pooled scratch remembers across calls, up to a bound, the words it has seen and
// what they cost to work out (ROUGE's and LoCoMo's stems, METEOR's stems and WordNet synonyms),
// and the WordNet table is read-only once loaded, so the scores never depend on what ran
// before. The functions that take slices in parallel (labels and scores, gold and predicted
// tags) panic when their lengths differ, as mixing two inputs is a programming error.
//
// Note: metrics take text, never records; the score app maps record fields to arguments, so the
// functions are usable as a standalone Go library.
package metric
