package honesty

import (
	"slices"

	"github.com/ghost-robotics/ghost/internal/timediff"
	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// consequences files a verdict's decision: taken on an overconfident
// belief, or a needless hold or abstention.
func (c *comparer) consequences(v *verdict, dtNs int64) {
	r := &c.res.Consequences
	var over, doubted []string
	needless := v.hasClaim && v.overall != decisions.LevelKnown
	for i := range v.err {
		if !v.hasClaim {
			break
		}
		judged := finite(v.err[i])
		within := judged && v.err[i] <= v.known[i] && v.err[i] >= -v.known[i]
		if v.level[i] == decisions.LevelKnown {
			if judged && !within {
				over = append(over, AxisNames[i])
				needless = false
			}
			continue
		}
		doubted = append(doubted, AxisNames[i])
		if !within {
			needless = false // a doubt the truth bears out, or cannot judge
		}
	}
	needless = needless && len(doubted) > 0
	groups := []struct {
		g    *Group
		in   bool
		axes []string
	}{
		{r.Overconfident, v.hasDecision && len(over) > 0, over},
		{r.NeedlessHolds, v.hasDecision && needless && v.kind == decisions.KindHold, doubted},
		{r.NeedlessAbstentions, v.hasDecision && needless && v.kind == decisions.KindAbstainUncertain, doubted},
	}
	for _, x := range groups {
		if !x.in {
			x.g.close(c.opts.MaxEpisodes)
			continue
		}
		x.g.add(v.kind, v.stamp, dtNs, x.axes, c.opts.MaxEpisodes)
	}
}

// add counts one decision of kind at stamp that held dtNs, extending the
// open episode when it has the same kind.
func (g *Group) add(kind decisions.Kind, stamp, dtNs int64, axes []string, maxEpisodes int) {
	name := kind.String()
	g.Decisions++
	g.ns += dtNs
	k := g.ByKind[name]
	if k == nil {
		k = &KindCount{}
		g.ByKind[name] = k
	}
	k.Decisions++
	k.ns += dtNs
	if g.open != nil && g.open.Kind != name {
		g.close(maxEpisodes)
	}
	if g.open == nil {
		g.open = &Episode{Kind: name, StartNs: stamp, Axes: []string{}}
	}
	e := g.open
	e.EndNs = stamp + dtNs
	e.Seconds = seconds(timediff.Sub(e.EndNs, e.StartNs))
	e.Decisions++
	for _, a := range axes {
		if !slices.Contains(e.Axes, a) {
			e.Axes = append(e.Axes, a)
		}
	}
}

// close ends the open episode, keeping it while there is room.
func (g *Group) close(maxEpisodes int) {
	if g.open == nil {
		return
	}
	if len(g.Episodes) < maxEpisodes {
		slices.SortFunc(g.open.Axes, func(a, b string) int { return axisIndex(a) - axisIndex(b) })
		g.Episodes = append(g.Episodes, *g.open)
	} else {
		g.EpisodesOmitted++
	}
	g.open = nil
}

func axisIndex(name string) int {
	for i, n := range AxisNames {
		if n == name {
			return i
		}
	}
	return len(AxisNames)
}
