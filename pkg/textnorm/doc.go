// Package textnorm holds the text primitives the official Python evaluation scripts rely on,
// re-implemented with Python 3 semantics: str.lower with SpecialCasing, str.split and str.strip
// whitespace, str.isalnum word characters for the Unicode \b, string.punctuation, the SQuAD and
// LoCoMo answer normalisers, the rouge-score tokenizer, the NLTK Porter stemmer and the NLTK
// tokenizers CMRC needs (WordTokenize, SentTokenize).
//
// The reference is CPython 3.11 (Unicode 14.0), NLTK 3.8 and the regex module LoCoMo's script
// imports: the normalisers, the stemmer and Lower are checked against them on every code point
// in a set of templates (a digest of the reference's outputs), and the stemmer and tokenizers on
// thousands of words and texts NLTK itself processed (testdata). Results are exact, not close:
// a metric built on them gives the same tokens as the script. Where Go's Unicode tables (15.0)
// and Python 3.11's (14.0) differ, the functions follow Python's (see NewInUnicode15), and
// LocomoNormalize the regex module's, which are 15.0 too; SentTokenize says where it follows
// Go's.
//
// Every function is safe for concurrent use: the only shared state is the embedded Punkt model,
// loaded once and only read.
//
// Note: Go's strings.ToLower, strings.Fields and regexp \b each differ from Python on a few code
// points (İ, final sigma, U+001C–U+001F, non-ASCII word characters), and the benchmark scores
// change on exactly those inputs, so every primitive here is written by hand over runes with an
// ASCII fast path instead of leaning on the standard library or regexp.
package textnorm
