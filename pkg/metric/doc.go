// Package metric implements QA scoring metrics as plain functions over strings and slices, each
// at parity with the benchmark's official script (SQuAD, HotpotQA, rouge-score, NLTK BLEU and
// METEOR, CMRC 2018, LoCoMo) and tested against golden vectors produced by that code.
//
// Note: metrics take text, never records; the score app maps record fields to arguments, so the
// functions are usable as a standalone Go library.
package metric
