// Package evalearn holds EvaLearn protocol rules shared by qa-load, qa-judge and qa-learncurve:
// how a judge reply is read (ParseReply) and which sequence ids and positions are the same (Key),
// exactly as Evaluate/evaluate_metric.py of ByteDance-Seed/EvaLearn (commit e4673f9) decides.
//
// The main design choice: the rule is reproduced with a private scanner of Python's json.loads
// grammar and Python's Unicode \s, \d and int() rather than encoding/json and regexp, so that
// every reply, malformed ones included, gets the official outcome; and the package imports only
// the standard library and textnorm, so that qa-learncurve does not pull in qa-judge's model clients.
package evalearn
