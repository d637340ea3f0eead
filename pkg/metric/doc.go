// Package metric implements QA scoring metrics as plain functions over strings and slices, each
// at parity with the benchmark's official script (SQuAD, HotpotQA, rouge-score, NLTK BLEU and
// METEOR, CMRC 2018, LoCoMo) and tested against golden vectors produced by that code; so are the
// corpus-level metrics (classification, ROC AUC, Pn and pairwise accuracy, conlleval chunks, MRR
// and MAP, perplexity, corpus BLEU), against scikit-learn 1.2, NLTK 3.8 and ERNIE-kit's
// definitions. The embedding metrics (the cosine behind sbert, BERTScore's greedy matching) take
// vectors, not text, and are checked on hand-computed cases of bert_score's formulas.
//
// Texts are UTF-8, as Python's str is text: a byte that is not (which record.Reader refuses)
// reads as U+FFFD wherever a metric looks at characters, so two different invalid bytes read
// alike ("\xff" and "\xfe" match). The functions are safe for concurrent use; the caches some keep
// (ROUGE's stems, METEOR's WordNet lookups) are safe for it too.
//
// Note: metrics take text, never records; the score app maps record fields to arguments, so the
// functions are usable as a standalone Go library.
package metric
