// Package python reproduces the Python behaviour that upstream benchmark scripts depend on, so that
// prompts, judge verdicts and reports come out byte for byte as theirs: json.loads (Loads, to a
// Value), json.dumps with default arguments (Value.Dumps, JSONString, JSONFloat), str() and
// repr() (Value.Str, Value.Repr, Repr, StrList, FloatRepr), the literal of a list of str that
// str() writes read back (ParseStrList, ParseAnswerList with None, nan or numbers among them, and
// ParseArrayStr, numpy's str() of an array, which pandas writes too, and ArrayStrLoss, whether
// that text lost the array's items), and of a list of [str, int]
// pairs (ParseStrIntPairs), a dict's told (OpensDict), and float() (ParseFloat, Value.Float).
// The reference is CPython 3.11, the interpreter of the golden outputs.
//
// The main design choice: strings are kept as Python has them, lone surrogates included, by
// holding them in WTF-8 (a surrogate is written as its own 3-byte sequence, which UTF-8 forbids), so
// that json.loads("\"\\ud800\"") dumps and prints as Python would rather than as U+FFFD. Every
// function here reads such strings; strings from elsewhere are plain UTF-8, which is a subset.
package python
