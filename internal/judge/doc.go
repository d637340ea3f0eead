// Package judge grades predictions the way each benchmark's authors did: it routes a record to a
// judging protocol (LongMemEval yes/no, MAGMA continuous score, mem0 CORRECT/WRONG, EvaLearn rubric,
// rule-based unanswerable checks, or an offline approximate rule judge), renders the protocol's
// embedded prompt, calls a model.Client, parses the reply with the protocol's own rule, and measures
// agreement between judges. It also holds the qa-judge command (Run), whose client is built by
// model.Setup exactly as qa-predict's is (same flags, retries, rate limits, cache and prices).
//
// The main design choice: a failure is never a zero. A reply that cannot be parsed is asked again
// (as a distinct sample, so a cache cannot return the same bad reply) and then becomes a Judgment
// with Error set, no Score, and the raw text kept. Where an official parser maps a malformed reply
// to 0 (EvaLearn, MAGMA's missing "score"), the parsers here report it as unparsable instead (EvaLearn's rule
// lives in internal/evalearn, shared with qa-learncurve, which uses its official outcome).
package judge
