package report

import "github.com/ghost-robotics/ghost/pkg/decisions"

// Colours: the Okabe-Ito palette (distinguishable with the common forms of
// colour blindness) for the decision kinds and levels, with the same colour
// for a kind and the flight mode it engages (engage_rtl and rtl, ...), so
// the eye links them across figures. Every colour also has a label in a
// legend or a tooltip: colour is never the only carrier.
const (
	colGreen     = "#009E73" // bluish green
	colSky       = "#56B4E9" // sky blue
	colYellow    = "#F0E442"
	colPurple    = "#CC79A7" // reddish purple
	colOrange    = "#E69F00"
	colBlue      = "#0072B2"
	colVermilion = "#D55E00"
	colGrey      = "#999999" // outside a catalog
	colNone      = "#EEEEEE" // no data
	colInk       = "#222222"
)

// kindColor is the colour of each decision kind, indexed by decisions.Kind.
var kindColor = [decisions.NumKinds]string{
	decisions.KindProceed:          colGreen,
	decisions.KindHold:             colYellow,
	decisions.KindYieldToPilot:     colPurple,
	decisions.KindEngageRTL:        colOrange,
	decisions.KindEngageLand:       colBlue,
	decisions.KindEngageKill:       colVermilion,
	decisions.KindAbstainUncertain: colSky,
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

// levelColor is indexed by decisions.Level.
var levelColor = [3]string{colGreen, colYellow, colVermilion}

// flightModeColor is indexed by decisions.FlightMode.
var flightModeColor = [7]string{"#BBBBBB", colPurple, "#999933", colGreen, colOrange, colBlue, colVermilion}

// perceptionColor is indexed by decisions.PerceptionMode (Paul Tol's muted
// scheme, nominal a quiet grey).
var perceptionColor = [8]string{"#DDDDDD", "#DDCC77", "#88CCEE", "#44AA99", "#CC6677", "#AA4499", "#332288", "#882255"}

// axisColor colours the x, y and z axes of a block.
var axisColor = [3]string{colBlue, colOrange, colPurple}

// markColor is indexed by MarkKind.
var markColor = [3]string{colSky, colOrange, colVermilion}
