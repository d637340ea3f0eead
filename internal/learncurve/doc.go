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
// sequence than the number 117.
//
// The design choice: records are reduced first to a 0/1 matrix (Sequence values, one row per
// sequence in first-appearance order), and every metric, report, bootstrap replicate and plot is
// a function of that matrix, so resampling sequences never rereads records.
package learncurve
