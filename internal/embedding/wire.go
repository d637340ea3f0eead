package embedding

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/qapipe/qapipe/internal/english"
	"github.com/qapipe/qapipe/internal/model"
)

// The request and response bodies of the three servers. Only the fields read are declared.

type openAIRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

type openAIResponse struct {
	Data []struct {
		Index     int    `json:"index"`
		Embedding vector `json:"embedding"`
	} `json:"data"`
}

type ollamaRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

type ollamaResponse struct {
	Embeddings []vector `json:"embeddings"`
}

// TEI: /embed and /embed_all take {"inputs", "truncate"}; /tokenize {"inputs", "add_special_tokens"}.
type teiEmbedRequest struct {
	Inputs    []string `json:"inputs"`
	Truncate  bool     `json:"truncate"`
	Normalize *bool    `json:"normalize,omitempty"`
}

type teiTokenizeRequest struct {
	Inputs           []string `json:"inputs"`
	AddSpecialTokens bool     `json:"add_special_tokens"`
}

// teiToken is one element of /tokenize's reply ({"id","text","special","start","stop"}).
type teiToken struct {
	ID      int  `json:"id"`
	Special bool `json:"special"`
}

// sentences returns one embedding per text from the configured provider.
func (s *Scorer) sentences(ctx context.Context, texts []string) ([][]float32, error) {
	var out []vector
	path := "/embed"
	switch s.cfg.Provider {
	case OpenAI:
		var resp openAIResponse
		path = "/embeddings"
		if err := s.post(ctx, path, openAIRequest{Model: s.cfg.Model, Input: texts}, &resp); err != nil {
			return nil, err
		}
		out = make([]vector, len(texts))
		for _, d := range resp.Data {
			if d.Index < 0 || d.Index >= len(texts) || out[d.Index] != nil {
				return nil, fmt.Errorf("embed %s/embeddings: reply index %d out of range or repeated for %s", s.shown, d.Index, english.Count(len(texts), "input", "inputs"))
			}
			out[d.Index] = d.Embedding
		}
		if len(resp.Data) != len(texts) {
			return nil, countError(s.shown+"/embeddings", "embedding", len(resp.Data), len(texts))
		}
	case Ollama:
		var resp ollamaResponse
		path = "/api/embed"
		if err := s.post(ctx, path, ollamaRequest{Model: s.cfg.Model, Input: texts}, &resp); err != nil {
			return nil, err
		}
		out = resp.Embeddings
	case TEI:
		if err := s.post(ctx, path, teiEmbedRequest{Inputs: texts, Truncate: true}, &out); err != nil {
			return nil, err
		}
	}
	if len(out) != len(texts) {
		return nil, countError(s.shown+path, "embedding", len(out), len(texts))
	}
	for i, v := range out {
		if len(v) == 0 {
			return nil, fmt.Errorf("embed %s%s: empty embedding for input %d", s.shown, path, i)
		}
	}
	return floats(out), nil
}

// tokenEmbeddings returns the tokens and token embeddings of each text from TEI: /tokenize (with
// special tokens, as /embed_all sees them) and /embed_all (truncating to the model's maximum).
// With Config.PrefixSpace both are sent each text with a space before it, so that the ids and
// the vectors are of one tokenization, bert_score's for a RoBERTa or GPT-2 tokenizer: the
// texts are stripped and not blank (BERTScore), so the space is the only one before the first
// word, which a byte-level BPE tokenizer makes one token with it ("ĠHello"), not a token of its
// own. The special tokens are the tokenizer's as without it, and truncation keeps the first
// tokens as bert_score's truncation=True does.
func (s *Scorer) tokenEmbeddings(ctx context.Context, texts []string) ([]tokens, error) {
	if s.cfg.Provider != TEI {
		return nil, errNeedTEI(s.cfg.Provider)
	}
	inputs := texts
	if s.cfg.PrefixSpace {
		inputs = make([]string, len(texts))
		for i, t := range texts {
			inputs[i] = " " + t
		}
	}
	var toks [][]teiToken
	if err := s.post(ctx, "/tokenize", teiTokenizeRequest{Inputs: inputs, AddSpecialTokens: true}, &toks); err != nil {
		return nil, err
	}
	var vecs [][]vector
	if err := s.post(ctx, "/embed_all", teiEmbedRequest{Inputs: inputs, Truncate: true}, &vecs); err != nil {
		return nil, err
	}
	if len(toks) != len(texts) {
		return nil, countError(s.shown+"/tokenize", "tokenization", len(toks), len(texts))
	}
	if len(vecs) != len(texts) {
		return nil, countError(s.shown+"/embed_all", "embedding", len(vecs), len(texts))
	}
	out := make([]tokens, len(texts))
	for i := range texts {
		if len(vecs[i]) == 0 {
			// A text sent has its special tokens at least: none is a failing server's reply,
			// which would score 0 as if the texts had nothing in common.
			return nil, fmt.Errorf("embed %s/embed_all: no token embeddings for input %d", s.shown, i)
		}
		t, err := align(toks[i], floats(vecs[i]))
		if err != nil {
			return nil, fmt.Errorf("embed %s: input %d: %w", s.shown, i, err)
		}
		out[i] = t
	}
	return out, nil
}

// align pairs /tokenize's tokens with /embed_all's vectors. With truncation the tokenizer keeps the
// first tokens and re-appends the closing special token ([SEP], </s>), as bert_score's
// truncation=True does; align mirrors that when /embed_all returns fewer vectors than tokens.
func align(toks []teiToken, vecs [][]float32) (tokens, error) {
	n := len(vecs)
	if len(toks) < n {
		return tokens{}, fmt.Errorf("/tokenize gave %s but /embed_all %s", english.Count(len(toks), "token", "tokens"), english.Count(n, "vector", "vectors"))
	}
	for i, v := range vecs {
		if len(v) == 0 || len(v) != len(vecs[0]) {
			return tokens{}, fmt.Errorf("/embed_all token %d has %s, token 0 has %d", i, english.Count(len(v), "dimension", "dimensions"), len(vecs[0]))
		}
	}
	t := tokens{ids: make([]int, n), special: make([]bool, n), vecs: vecs}
	for i, tok := range toks[:n] {
		t.ids[i], t.special[i] = tok.ID, tok.Special
	}
	if len(toks) > n && n > 0 && toks[len(toks)-1].Special {
		// truncated: the closing special token takes the last place kept (the caller's tokens
		// are left as they were)
		t.ids[n-1], t.special[n-1] = toks[len(toks)-1].ID, true
	}
	return t, nil
}

// vector is one embedding as a server sends it, a JSON array of numbers. A null in it is an
// error, never the 0 encoding/json would leave there: TEI (serde_json) and llama.cpp's server
// (nlohmann::json) write a NaN or infinite component as null, which is what a model in numeric
// trouble (fp16 overflow, say) sends, for one text or for all.
type vector []float32

var errNullComponent = errors.New("an embedding holds null where a number belongs (the model produced NaN or infinity; try another precision or model)")

// UnmarshalJSON reads an array of numbers. encoding/json has checked that b is valid JSON.
func (v *vector) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		*v = nil // no embedding at all: the caller's length checks report it
		return nil
	}
	if len(b) < 2 || b[0] != '[' || b[len(b)-1] != ']' {
		return fmt.Errorf("an embedding is %s, not an array of numbers", snippet(b))
	}
	body := bytes.TrimSpace(b[1 : len(b)-1])
	out := make([]float32, 0, bytes.Count(body, []byte{','})+1)
	for len(body) > 0 {
		elem, rest, _ := bytes.Cut(body, []byte{','})
		body = rest
		elem = bytes.TrimSpace(elem)
		if string(elem) == "null" {
			return errNullComponent
		}
		x, err := strconv.ParseFloat(string(elem), 32)
		if err != nil {
			return fmt.Errorf("embedding component %d: %s is not a finite float32", len(out), snippet(elem))
		}
		out = append(out, float32(x))
	}
	*v = out
	return nil
}

// floats returns vs as plain slices.
func floats(vs []vector) [][]float32 {
	out := make([][]float32, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

// countError is the error of a reply from where holding got items, what ("embedding" or
// "tokenization"), for want inputs.
func countError(where, what string, got, want int) error {
	return fmt.Errorf("embed %s: %s for %s", where, english.Count(got, what, what+"s"), english.Count(want, "input", "inputs"))
}

// post sends body as JSON to path and decodes the JSON reply into out. A non-2xx status is an error
// quoting the start of the server's message; the transport has already retried transient ones. A
// failed call is a *model.CallError, so that it counts its attempts in the model calls' words.
func (s *Scorer) post(ctx context.Context, path string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("embed %s%s: %w", s.shown, path, err)
	}
	// A 200 reply of another shape than the endpoint's (`[]` from an OpenAI-compatible server,
	// `{"detail": …}` from a proxy) is retried as malformed JSON is, and fails naming what came.
	ctx, attempts := model.WithAttempts(model.WithEmbedShape(ctx, s.cfg.Provider, path))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.base+path, bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("embed %s%s: %w", s.shown, path, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if s.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+s.cfg.APIKey)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		// The latest attempt's own error; else the client's without the URL it repeats, which
		// the message names already.
		if cause := attempts.Err(); cause != nil {
			err = cause
		} else if ue, ok := errors.AsType[*url.Error](err); ok {
			err = ue.Err
		}
		return s.failed(path, attempts, err) // the key travels in a header, never in err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return s.failed(path, attempts, fmt.Errorf("read reply: %w", err))
	}
	if resp.StatusCode/100 != 2 {
		// Redacted before it is cut: a key the cut falls in would keep its first bytes.
		return s.failed(path, attempts, &statusError{code: resp.StatusCode, status: resp.Status, msg: snippet([]byte(s.redact(string(data))))})
	}
	if err := json.Unmarshal(data, out); err != nil {
		return s.failed(path, attempts, fmt.Errorf("decode reply: %w", decodeError(err)))
	}
	return nil
}

// statusError is a reply of a status other than 2xx: the status and the start of the server's
// message.
type statusError struct {
	code        int
	status, msg string
}

func (e *statusError) Error() string { return e.status + ": " + e.msg }

// refusal returns the error of a request that the server refused for what it holds (400, 413 or
// 422: a text over the model's context, an empty one, too many texts), which asking for its texts
// apart may avoid, or nil for any other error.
func refusal(err error) *statusError {
	se, ok := errors.AsType[*statusError](err)
	if ok && (se.code == http.StatusBadRequest || se.code == http.StatusRequestEntityTooLarge || se.code == http.StatusUnprocessableEntity) {
		return se
	}
	return nil
}

// decodeError words err, encoding/json's, without the Go types it names (`cannot unmarshal
// string into Go struct field openAIResponse.data of type []struct {…}`): what the reply holds
// where, and what belongs there.
func decodeError(err error) error {
	te, ok := errors.AsType[*json.UnmarshalTypeError](err)
	if !ok || te.Type == nil {
		return err
	}
	want := "a value of another kind"
	switch te.Type.Kind() {
	case reflect.Slice, reflect.Array:
		want = "an array"
	case reflect.Struct, reflect.Map:
		want = "an object"
	case reflect.String:
		want = "a string"
	case reflect.Bool:
		want = "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		want = "a number"
	}
	where := ""
	if te.Field != "" {
		where = " at " + te.Field
	}
	return fmt.Errorf("a JSON %s%s where %s belongs", te.Value, where, want)
}

// failed is the error of a call to path that err ended after the attempts counted, with the
// model calls' hint (model.Hint) on what to check, in qa-score's --embed-* words.
func (s *Scorer) failed(path string, attempts *model.Attempts, err error) error {
	return &model.CallError{Attempts: attempts.N(), Err: fmt.Errorf("embed %s%s: %w", s.shown, path, err),
		Hint: model.Hint(s.cfg.Provider, s.base, attempts, hintNames(s.cfg.Provider, s.cfg.APIKey, s.cfg.KeyFile))}
}

// hintNames are the flag and variables qa-score reads the embedding provider and key from, for a
// call made with key ("" for none) read from the file keyFile names (Config.KeyFile).
func hintNames(provider, key, keyFile string) model.HintNames {
	env := []string{"QA_EMBED_API_KEY"}
	if provider == OpenAI {
		env = append(env, "OPENAI_API_KEY")
	}
	return model.HintNames{ProviderFlag: "--embed-provider", KeyFileFlag: cmp.Or(keyFile, "--embed-api-key-file"), TimeoutFlag: "--embed-timeout", KeyEnv: env, NoKey: key == "", Key: key}
}

// redact removes the API key from a message that might echo it.
func (s *Scorer) redact(msg string) string {
	if len(s.cfg.APIKey) < 4 {
		return msg
	}
	return strings.ReplaceAll(msg, s.cfg.APIKey, "[redacted]")
}

// snippet returns the first 300 bytes of a reply body on one line.
func snippet(b []byte) string {
	const limit = 300
	if len(b) > limit {
		b = b[:limit]
	}
	return strings.Join(strings.Fields(strings.ToValidUTF8(string(b), "\uFFFD")), " ")
}
