package report

import "github.com/ghost-robotics/ghost/pkg/decisions"

// Colours. Every colour of a figure has one meaning, listed once in the
// report's legend table (legend below); a test holds the figures to it.
//
// The decision kinds take the Okabe-Ito palette, distinguishable with the
// common forms of colour blindness: abstain_uncertain, the "I don't know"
// outcome, is black, the loudest, not a calm colour. The self-assessment
// levels take one hue of their own, light to dark as knowledge fades, so
// they never read as a kind. States the strips name in words (flight mode,
// perception mode, armed) are white boxes with their name, and the
// action trail's events are shapes in ink: colour never carries those.
const (
	colGreen     = "#009E73" // bluish green: proceed
	colBlack     = "#000000" // abstain_uncertain
	colYellow    = "#F0E442" // hold
	colSky       = "#56B4E9" // yield_to_pilot
	colOrange    = "#E69F00" // engage_rtl
	colBlue      = "#0072B2" // engage_land
	colVermilion = "#D55E00" // engage_kill
	colGrey      = "#999999" // outside a catalog

	colKnown     = "#EBCFE0" // level known
	colUncertain = "#CC79A7" // level uncertain (Okabe-Ito reddish purple)
	colUnknown   = "#6A2150" // level unknown

	colNone    = "#EEEEEE" // nothing recorded, or nothing to compare
	colBattery = "#6E6E6E" // battery range in a time slice
	colAxisX   = "#C4C4C4" // the x axis of a standard deviation panel

	// The true error of each axis (report --truth), light to dark.
	colTruthX = "#D9C3A5"
	colTruthY = "#A67C52"
	colTruthZ = "#5C3D1E"

	// Ink and structure: text, glyphs, marks, frames, grid.
	colInk   = "#222222"
	colMuted = "#555555" // secondary text
	colGrid  = "#DDDDDD"
	colFrame = "#BBBBBB"
	colWhite = "#FFFFFF"
)

// kindColor is the colour of each decision kind, indexed by decisions.Kind.
var kindColor = [decisions.NumKinds]string{
	decisions.KindProceed:          colGreen,
	decisions.KindHold:             colYellow,
	decisions.KindYieldToPilot:     colSky,
	decisions.KindEngageRTL:        colOrange,
	decisions.KindEngageLand:       colBlue,
	decisions.KindEngageKill:       colVermilion,
	decisions.KindAbstainUncertain: colBlack,
}

// kindOrder lists the kinds from benign to drastic: legends use it, and a
// bucket holding several kinds shows the most drastic.
var kindOrder = [decisions.NumKinds]decisions.Kind{
	decisions.KindProceed, decisions.KindAbstainUncertain, decisions.KindHold, decisions.KindYieldToPilot,
	decisions.KindEngageRTL, decisions.KindEngageLand, decisions.KindEngageKill,
}

// KindColor returns the report's colour for k (grey outside the catalog).
func KindColor(k decisions.Kind) string {
	if k.Valid() {
		return kindColor[k]
	}
	return colGrey
}

// onColor returns the text colour readable on a fill of the palette.
func onColor(fill string) string {
	switch fill {
	case colBlack, colBlue, colVermilion, colGreen, colUnknown:
		return colWhite
	}
	return colInk
}

// axisColor colours the true error of the x, y and z axes of a block.
var axisColor = [3]string{colTruthX, colTruthY, colTruthZ}

// levelColor is indexed by decisions.Level.
var levelColor = [3]string{colKnown, colUncertain, colUnknown}

// legendEntry is one row of the legend table: a colour (or a pattern or
// symbol, in swatch) and its one meaning.
type legendEntry struct {
	// color is the fill or stroke colour the meaning owns; empty for a
	// symbol drawn in ink.
	color string
	// swatch is the CSS background of the table's swatch; symbol a
	// character standing for a shape drawn in ink.
	swatch, symbol string
	meaning        string
}

// hatchCSS draws the "mode differs" hatching in the legend table.
const hatchCSS = "repeating-linear-gradient(135deg," + colInk + " 0 1.5px," + colWhite + " 1.5px 5px)"

// legend is the report's one legend: every colour of the figures, each
// with one meaning, then the symbols.
var legend = func() []legendEntry {
	var out []legendEntry
	for _, k := range kindOrder {
		out = append(out, legendEntry{color: kindColor[k], meaning: "decision " + k.String()})
	}
	return append(out,
		legendEntry{color: colGrey, meaning: "a value outside its catalog"},
		legendEntry{color: colKnown, meaning: "self-assessment level known"},
		legendEntry{color: colUncertain, meaning: "self-assessment level uncertain; its dashed line is the known threshold, above which an axis is uncertain"},
		legendEntry{color: colUnknown, meaning: "self-assessment level unknown; its dashed line is the unknown threshold, above which an axis is unknown"},
		legendEntry{color: colNone, meaning: "nothing recorded in this time slice, or nothing to compare"},
		legendEntry{color: colBattery, meaning: "battery: lowest to highest value in the time slice"},
		legendEntry{color: colAxisX, meaning: "standard deviation of the x axis (wide, under y); y is a thin ink line, z a dashed one"},
		legendEntry{color: colTruthX, meaning: "true error of the x axis against the simulator's truth (report --truth); y and z darker"},
		legendEntry{color: colTruthY, meaning: "true error of the y axis (report --truth)"},
		legendEntry{color: colTruthZ, meaning: "true error of the z axis (report --truth)"},
		legendEntry{swatch: hatchCSS, meaning: "the vehicle's flight mode differs from the decided kind (see the mapping below)"},
		legendEntry{swatch: colWhite, meaning: "a state named in its strip: flight mode, perception mode, armed"},
		legendEntry{symbol: "▼", meaning: "command sent (▽: sent again, a retry)"},
		legendEntry{symbol: "✓", meaning: "command acknowledged ACCEPTED by the vehicle"},
		legendEntry{symbol: "●", meaning: "the vehicle reached the commanded state"},
		legendEntry{symbol: "✕", meaning: "the action failed or was refused; its class is written under it (transport, executor with the vehicle's answer, not applicable, blocked by policy)"},
		legendEntry{symbol: "⊘", meaning: "the action was superseded by a newer decision before it concluded"},
		legendEntry{symbol: "◇", meaning: "evidence from the executor rejected (provenance)"},
		legendEntry{symbol: "▲", meaning: "escalation: the decided kind becomes more severe while the previous kind's last action has not reached its state"},
		legendEntry{symbol: "▮", meaning: "a mark: decided without an assessment, rejected input, audit problem (the row says which)"},
	)
}()
