package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/rules"
	"github.com/ghost-robotics/ghost/pkg/session"
)

const policyDescription = `
Works with YAML rule policies (see config/policies/README.md).

  policy check FILE         validate FILE and report rules that can never
                            fire or are shadowed by an earlier rule of higher
                            severity, tests of the outcome of a kind the
                            policy never decides, and names whose meaning
                            differs from their MAVLink sense (outcome
                            rejected); prints the policy id
  policy test FILE CASES    run the table cases of CASES (context steps in,
                            decision out) against FILE

Exit status 0 when the file is valid (check) or every case passes (test);
1 when check finds anything or a case fails; 2 on usage errors; 3 when a
file cannot be read or parsed.`

const policyExample = `  decision_node policy check config/policies/px4_failsafe_like.yaml
  decision_node policy test config/policies/px4_failsafe_like.yaml config/policies/px4_failsafe_like.cases.yaml`

func runPolicy(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("policy", policyDescription, policyExample, stdout)
	if err := fs.parse(args); err != nil {
		return err
	}
	args = fs.Args()
	if len(args) == 0 {
		return fail(exitUsage, "policy needs a subcommand: check FILE or test FILE CASES")
	}
	switch sub, files := args[0], args[1:]; {
	case sub == "check" && len(files) == 1:
		return policyCheck(files[0], stdout)
	case sub == "test" && len(files) == 2:
		return policyTest(files[0], files[1], stdout)
	case sub == "check":
		return fail(exitUsage, "policy check takes one FILE, got %d arguments", len(files))
	case sub == "test":
		return fail(exitUsage, "policy test takes a policy FILE and a CASES file, got %d arguments", len(files))
	default:
		hint := ""
		if s := suggest(sub, []string{"check", "test"}); s != "" {
			hint = fmt.Sprintf(" (did you mean %q?)", s)
		}
		return fail(exitUsage, "unknown policy subcommand %q%s: want check or test", capText(sub, 40), hint)
	}
}

// policyCheck validates a policy file and reports its dead rules.
func policyCheck(file string, stdout io.Writer) error {
	p, err := rules.ParseFile(file)
	if err != nil {
		return fail(exitIO, "%w", err)
	}
	fmt.Fprintf(stdout, "policy %s: %d rules, id %s\n", file, p.NumRules(), p.ID())
	findings := rules.Check(p)
	for _, f := range findings {
		fmt.Fprintln(stdout, f.String())
	}
	if len(findings) > 0 {
		return fail(exitFindings, "%s: %s", file, summarizeFindings(findings))
	}
	fmt.Fprintln(stdout, "ok: every rule can fire")
	return nil
}

// policyTest runs a cases file against a policy file.
func policyTest(file, cases string, stdout io.Writer) error {
	p, err := rules.ParseFile(file)
	if err != nil {
		return fail(exitIO, "%w", err)
	}
	results, err := rules.RunCasesFile(p, cases)
	if err != nil {
		return fail(exitIO, "%w", err)
	}
	failed := 0
	for _, r := range results {
		fmt.Fprintln(stdout, r.String())
		if !r.Pass {
			failed++
		}
	}
	fmt.Fprintf(stdout, "%d passed, %d failed\n", len(results)-failed, failed)
	if failed > 0 {
		return fail(exitFindings, "%s: %d of %d cases failed", cases, failed, len(results))
	}
	return nil
}

// summarizeFindings counts Check's findings: rules that can never decide,
// constant tests of actions the policy never commands, then misleading
// names.
func summarizeFindings(fs []rules.Finding) string {
	dead, constant, misleading := 0, 0, 0
	for _, f := range fs {
		switch f.Kind {
		case rules.NeverCommanded:
			constant++
		case rules.MisleadingName:
			misleading++
		default:
			dead++
		}
	}
	var parts []string
	if dead > 0 {
		parts = append(parts, fmt.Sprintf("%d rules can never decide", dead))
	}
	if constant > 0 {
		parts = append(parts, fmt.Sprintf("%d rules test the outcome of a kind the policy never decides", constant))
	}
	if misleading > 0 {
		parts = append(parts, fmt.Sprintf("%d names mean other than a PX4 user reads in them", misleading))
	}
	return strings.Join(parts, "; ")
}

// auditSettings resolves what an audit runs with: the configuration (a
// parameters file or the defaults), the session it implies, and the host's
// policies, the configuration's policy file among them.
func auditSettings(config string, policyFiles []string) (config.Config, session.SessionOptions, []decisions.Policy, error) {
	df := decisionFlags{config: config}
	cfg, sopts, err := df.session()
	if err != nil {
		return cfg, sopts, nil, err
	}
	if cfg.PolicyFile != "" {
		policyFiles = append(policyFiles, cfg.PolicyFile)
	}
	policies, err := hostPolicies(policyFiles)
	return cfg, sopts, policies, err
}

// hostPolicies are the policies verify may re-run: the built-in ones and
// every rule policy file given.
func hostPolicies(files []string) ([]decisions.Policy, error) {
	var ps []decisions.Policy
	for _, id := range decisions.PolicyIDs() {
		p, _ := decisions.LookupPolicy(id)
		ps = append(ps, p)
	}
	seen := map[string]string{}
	for _, f := range files {
		p, err := rules.ParseFile(f)
		if err != nil {
			return nil, fail(exitIO, "%w", err)
		}
		if other, ok := seen[p.ID()]; ok {
			if other == f {
				continue
			}
			return nil, fail(exitUsage, "%s and %s are the same policy (%s)", other, f, p.ID())
		}
		seen[p.ID()] = f
		ps = append(ps, p)
	}
	return ps, nil
}
