package command

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/urfave/cli/v2"
)

// BaseURL returns the value of c's URL flag name (--base-url, --embed-base-url, …), or a usage
// error naming the flag, and its QA_* variable when that set it, when the value is no http or
// https URL with a host: "localhost:8000/v1" wants its "http://", which the error suggests.
// An empty value (the provider's own endpoint) is returned as it is.
//
// Note: the HTTP clients take "localhost:8000" for a URL of scheme "localhost", and each call then
// failed on its record ("unsupported protocol scheme"), exit 3 after a run of failures, where the
// flag is at fault before any call.
func BaseURL(c *cli.Context, name string) (string, error) {
	v := c.String(name)
	if v == "" {
		return "", nil
	}
	if why := badURL(v); why != "" {
		return "", Usagef("%s: want a URL such as http://127.0.0.1:8000/v1, got %q%s: %s", dashed(name), shownURL(v), fromEnv(c, name), why)
	}
	return v, nil
}

// shownURL is u as an error shows it: its password masked (url.URL.Redacted's "xxxxx"), and the
// value of a query parameter whose name speaks of a secret (Gemini's ?key=, a token, a
// signature) left out (?key=…), as the calls' hints keep both out. A u that does not parse is
// shown as it is.
func shownURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	if p.RawQuery != "" {
		params := strings.Split(p.RawQuery, "&")
		for i, kv := range params {
			k, _, _ := strings.Cut(kv, "=")
			lower := strings.ToLower(k)
			for _, secret := range []string{"key", "token", "secret", "sig", "pass", "auth"} {
				if strings.Contains(lower, secret) {
					params[i] = k + "=…"
					break
				}
			}
		}
		p.RawQuery = strings.Join(params, "&")
	}
	if p.Fragment == "" && strings.HasSuffix(u, "#") {
		return p.Redacted() + "#" // a bare #, which url.URL does not keep
	}
	return p.Redacted()
}

// badURL says what is wrong with u as an endpoint, or returns "" when it is an http or https URL
// with a host.
func badURL(u string) string {
	if !strings.Contains(u, "://") {
		return fmt.Sprintf("it has no scheme (did you mean %q?)", "http://"+u)
	}
	p, err := url.Parse(u)
	switch {
	case err != nil:
		return strings.TrimPrefix(err.Error(), fmt.Sprintf("parse %q: ", u))
	case p.Scheme != "http" && p.Scheme != "https":
		return fmt.Sprintf("its scheme is %q, not http or https", p.Scheme)
	case p.Host == "":
		return "it has no host"
	case p.RawQuery != "" || p.ForceQuery || strings.Contains(u, "#"):
		// The clients join a path to the URL as text: /v1?x=1/chat/completions. A bare # (no
		// Fragment) makes /v1#/chat/completions all the same, which posts to /v1.
		return "it has a query (?…) or a fragment (#…), which the client would send inside the path of every call"
	}
	return ""
}
