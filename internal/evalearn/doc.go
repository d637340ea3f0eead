// Package evalearn holds EvaLearn protocol rules shared by qa-load, qa-judge, qa-score and
// qa-learncurve: how a judge reply is read (ParseReply), what verdict a judgment holds (Verdict)
// and which sequence ids and positions are the same (Key), exactly as Evaluate/evaluate_metric.py
// of ByteDance-Seed/EvaLearn (commit e4673f9) decides.
//
// The main design choice: the rule is reproduced with Python's own json.loads grammar
// (internal/python) and Python's Unicode \s, \d and int() rather than encoding/json and regexp, so
// that every reply, malformed ones included, gets the official outcome; and the package imports
// only the standard library, python, textnorm and record, so that qa-learncurve does not pull in
// qa-judge's model clients.
package evalearn
