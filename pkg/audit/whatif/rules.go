package whatif

import (
	"slices"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/rules"
	"go.yaml.in/yaml/v3"
)

// RuleNames maps each reason the rule policies among ps give to the names
// of the rules that give it, sorted, for CompareOptions.RuleNames. Other
// policies (the built-in ones) name no rules and are skipped.
func RuleNames(ps ...decisions.Policy) map[string][]string {
	out := map[string][]string{}
	for _, p := range ps {
		rp, ok := p.(*rules.Policy)
		if !ok {
			continue
		}
		for reason, names := range ruleNamesOf(rp.Text()) {
			for _, n := range names {
				if !slices.Contains(out[reason], n) {
					out[reason] = append(out[reason], n)
				}
			}
		}
	}
	for _, names := range out {
		slices.Sort(names)
	}
	return out
}

// ruleNamesOf reads the rules' names and reasons from a rule policy's
// text, which rules.Parse has already checked; text it cannot read gives
// no names.
func ruleNamesOf(text []byte) map[string][]string {
	var doc struct {
		Rules []struct {
			Name   string `yaml:"name"`
			Reason string `yaml:"reason"`
		} `yaml:"rules"`
	}
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil
	}
	out := map[string][]string{}
	for _, r := range doc.Rules {
		if r.Name != "" && r.Reason != "" && !slices.Contains(out[r.Reason], r.Name) {
			out[r.Reason] = append(out[r.Reason], r.Name)
		}
	}
	return out
}

// NewCasesView summarises the results of the policy test's table cases
// (rules.RunCasesFile) of file.
func NewCasesView(file string, results []rules.CaseResult) *CasesView {
	v := &CasesView{File: file}
	for _, r := range results {
		if r.Pass {
			v.Passed++
			continue
		}
		v.Failed++
		v.Failures = append(v.Failures, r.String())
	}
	return v
}

// kindOrder lists the kinds' names from the least to the most severe.
func kindOrder() []string {
	var out []string
	for _, k := range rules.SeverityOrder() {
		out = append(out, k.String())
	}
	return out
}
