package command

import (
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/qapipe/qapipe/internal/english"
)

// thinkModes are the values of --think, the default first.
var thinkModes = []string{"strip", "keep"}

// ThinkFlag returns the --think flag of qa-predict and qa-judge, read from env too, with usage as
// its help text; Think reads it.
func ThinkFlag(env, usage string) *cli.StringFlag {
	return &cli.StringFlag{Name: "think", Value: thinkModes[0], EnvVars: []string{env}, Usage: usage}
}

// Think reads --think: whether the thinking a reasoning model writes into its replies is taken
// out of them (strip, the default) or left in (keep). Another value is a usage error, named after
// the variable it came from, with a suggestion.
func Think(c *cli.Context) (strip bool, err error) {
	v := c.String("think")
	if !slices.Contains(thinkModes, v) {
		return false, Usagef("--think: want strip or keep, not %q%s%s", v, fromEnv(c, "think"), english.DidYouMean(v, thinkModes))
	}
	return v == "strip", nil
}
