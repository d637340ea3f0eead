package model

import "testing"

// TestErrorBodyWords reads each provider's real error body with the one reader and both rules on
// it: jsonErrorMessage, the words a StoppedError quotes, and bodyMessage, the words withCause adds
// to a client's that missed them (vLLM's and Mistral's top-level message, Gemini's listed error,
// an "error" that is a string, which Ollama's client reads and the others miss).
func TestErrorBodyWords(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		quoted     string // jsonErrorMessage
		added      string // bodyMessage
	}{
		{"openai 401",
			`{"error":{"message":"Incorrect API key provided: sk-test-****6789. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			"Incorrect API key provided: sk-test-****6789. You can find your API key at https://platform.openai.com/account/api-keys.", ""},
		{"anthropic 404",
			`{"type":"error","error":{"type":"not_found_error","message":"model: claude-9"}}`,
			"model: claude-9", ""},
		{"gemini 400",
			`{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}`,
			"API key not valid. Please pass a valid API key.", ""},
		{"gemini streamed 429",
			"[{\n  \"error\": {\n    \"code\": 429,\n    \"message\": \"Resource has been exhausted (e.g. check quota).\",\n    \"status\": \"RESOURCE_EXHAUSTED\"\n  }\n}\n]",
			"Resource has been exhausted (e.g. check quota).", "Resource has been exhausted (e.g. check quota)."},
		{"ollama 404",
			`{"error":"model \"llama9\" not found, try pulling it first"}`,
			`model "llama9" not found, try pulling it first`, `model "llama9" not found, try pulling it first`},
		{"text-embeddings-inference 413",
			`{"error":"Input validation error: inputs must have less than 512 tokens. Given: 600","error_type":"Validation"}`,
			"Input validation error: inputs must have less than 512 tokens. Given: 600", "Input validation error: inputs must have less than 512 tokens. Given: 600"},
		{"vllm before 0.10.1",
			`{"object":"error","message":"The model ` + "`qwen`" + ` does not exist.","type":"NotFoundError","param":null,"code":404}`,
			"The model `qwen` does not exist.", "The model `qwen` does not exist."},
		{"vllm since 0.10.1",
			`{"error":{"message":"The model ` + "`qwen`" + ` does not exist.","type":"NotFoundError","param":null,"code":404}}`,
			"The model `qwen` does not exist.", ""},
		{"mistral 400",
			`{"object":"error","message":"Assistant message must have either content or tool_calls, but not none.","type":"invalid_request_error","param":null,"code":null}`,
			"Assistant message must have either content or tool_calls, but not none.", "Assistant message must have either content or tool_calls, but not none."},
		{"mistral 422", // its message is an object: no words, and the StoppedError quotes the body
			`{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","frequency_penalty"],"msg":"Extra inputs are not permitted","input":0.0}]},"type":"invalid_request_error","param":null,"code":null}`,
			"", ""},
		{"llama.cpp 401",
			`{"error":{"code":401,"message":"Invalid API Key","type":"authentication_error"}}`,
			"Invalid API Key", ""},
		{"fastapi 404", `{"detail":"Not Found"}`, "Not Found", "Not Found"},
		{"fastapi 422",
			`{"detail":[{"type":"missing","loc":["body","model"],"msg":"Field required","input":null}]}`,
			"", "body.model: Field required"},
		{"fastapi 422, five errors",
			`{"detail":[{"loc":["body","messages",0,"role"],"msg":"Input should be 'user'"},{"loc":[],"msg":"a"},{"msg":" "},{"msg":"b"},{"loc":["query"],"msg":"c"},{"msg":"d"}]}`,
			"", "body.messages.0.role: Input should be 'user'; a; b; and 2 more"},
		{"detail beside an OpenAI error", `{"error":{"message":"Invalid API Key"},"detail":"x"}`, "Invalid API Key", ""},
		{"vllm message padded", `{"object":"error","message":" context too long \n","code":400}`, " context too long \n", "context too long"},
		{"empty list", `[]`, "", ""},
		{"list of no error", `[{"candidates":[]}]`, "", ""},
		{"no JSON", "404 page not found\n", "", ""},
		{"html", "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head></html>", "", ""},
		{"empty", "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := jsonErrorMessage([]byte(tc.body)); got != tc.quoted {
				t.Errorf("jsonErrorMessage(%s) = %q, want %q", tc.body, got, tc.quoted)
			}
			if got := bodyMessage([]byte(tc.body)); got != tc.added {
				t.Errorf("bodyMessage(%s) = %q, want %q", tc.body, got, tc.added)
			}
		})
	}
}
