package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/runner"
)

const replayDescription = `
Replays a recording through the decision path: reads its beliefs
(/state/nav), self-assessments (/self_assessment) and perception modes
(/perception/mode) in log-time order, decides every belief stamp as the live
node would (log times stand in for receive times), and writes a new recording
holding those inputs and the decisions with their rationales on /decisions.
An unindexed recording (its recorder was killed) is read in file order and
sorted within a 2 s window of log time; messages further out of order are
processed as read and counted.
Decisions already in the input are not copied: the replay's replace them.
The same input always gives the same output bytes.

A truncated input is processed up to the damage; the output is still a
complete recording and the exit status is 1. Corrupt messages are skipped,
counted and reported with their topic and byte offset.`

const replayExample = `  decision_node replay --in flight.mcap --out replayed.mcap
  decision_node verify replayed.mcap`

func runReplay(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("replay", "replay --in input.mcap --out output.mcap [flags]", replayDescription, replayExample, stderr)
	in := fs.String("in", "", "input recording (`file`, MCAP)")
	out := fs.String("out", "", "output recording (`file`, MCAP); must not exist unless --force")
	var df decisionFlags
	df.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *in == "" || *out == "" || fs.NArg() > 0 {
		fs.Usage()
		return fail(exitUsage, "replay needs --in and --out (and no other arguments)")
	}
	cfg, sopts, err := df.session()
	if err != nil {
		return err
	}
	reader, err := openInput(*in, sopts.Inputs, decisionsTopic(cfg), stderr)
	if err != nil {
		return err
	}
	defer reader.Close()
	src, reportOrder := inLogTimeOrder(reader, *in, stderr)
	defer reportOrder()
	return df.decideInto("replay", src, reader.MessageCount(), *in, *out, cfg, sopts, stderr)
}

// openInput opens a recording for reading the given topics, reporting
// channels it cannot use on stderr, with exit statuses for the common
// failures (missing, unreadable, not MCAP).
func openInput(path string, inputs []runner.InputSpec, decisions string, stderr io.Writer) (*bag.Reader, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fail(exitIO, "%w", err)
	}
	if st.IsDir() {
		return nil, fail(exitIO, "%s is a directory, not an MCAP recording (name the .mcap file inside it)", path)
	}
	topics := []string{decisions}
	schemas := map[string]string{decisions: "ghost/msg/DecisionRationale"}
	for _, in := range inputs {
		topics = append(topics, in.Topic)
		schemas[in.Topic] = in.Type
	}
	r, err := bag.OpenRecording(path, bag.ReaderOptions{
		Topics:  topics,
		Schemas: schemas,
		OnProblem: func(p bag.ChannelProblem) {
			fmt.Fprintf(stderr, "decision_node: %s: channel %d (%s): %v\n", path, p.Channel.ID, p.Channel.Topic, p.Err)
		},
	})
	if err != nil {
		if errors.Is(err, bag.ErrNotMCAP) {
			return nil, fail(exitIO, "%s is not an MCAP recording: %w", path, err)
		}
		return nil, fail(exitIO, "%w", err)
	}
	return r, nil
}
