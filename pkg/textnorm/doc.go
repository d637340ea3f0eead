// Package textnorm holds the text primitives the official Python evaluation scripts rely on,
// re-implemented with Python 3 semantics: str.lower with SpecialCasing, str.split and str.strip
// whitespace, str.isalnum word characters for the Unicode \b, string.punctuation, the SQuAD answer
// normaliser, the rouge-score tokenizer, the NLTK Porter stemmer and the tokenizers CMRC needs.
//
// Note: Go's strings.ToLower, strings.Fields and regexp \b each differ from Python on a few code
// points (İ, final sigma, U+001C–U+001F, non-ASCII word characters), and the benchmark scores
// change on exactly those inputs, so every primitive here is written by hand over runes with an
// ASCII fast path instead of leaning on the standard library or regexp.
package textnorm
