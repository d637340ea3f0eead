// Package learncurve computes EvaLearn's learning-curve metrics from judged, sequenced records and
// runs the qa-learncurve command.
//
// The metrics reproduce Evaluate/evaluate_metric.py of ByteDance-Seed/EvaLearn (commit e4673f9)
// exactly, quirks included: a sequence's type is the type of its first record, later records of
// the same (sequence, position) overwrite earlier ones, missing positions count as wrong, positions
// outside 1..M are ignored, a sequence never correct has first-correct position M+1, and the
// overall figures mix weightings (accuracy and post-warmup accuracy are micro averages over
// problems; position accuracy, its slope, first-correct position and longest streak are macro
// averages over types). Sequence ids and positions are told apart as the keys of Python dicts
// are (evalearn.Key): 3, 3.0 and true are positions 3, 3 and 1, and the string "117" is another
// sequence than the number 117. Types are dict keys too (TaskType): a record without one is of
// type "unknown", "" is a type of its own, and a type that is a number or null (kept by qa-load in
// meta.evalearn_type) is grouped by value, listed in Python's order and printed as str() and
// json.dump print the first spelling seen (True, -0.0, None); a name holding a lone surrogate
// (kept there too) is keyed as Python keys it and printed with U+FFFD. Where upstream stops with a
// TypeError (types of kinds Python cannot sort, such as a name and a number) the report lists
// names, then numbers, then null, and warns.
//
// The design choice: records are reduced first to a 0/1 matrix (Sequence values, one row per
// sequence in first-appearance order), and every metric, report, bootstrap replicate and plot is
// a function of that matrix, so resampling sequences never rereads records.
package learncurve
