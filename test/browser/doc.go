// Package browser holds the test that opens a real report in a real
// browser: it simulates a flight with the decision_node command, writes its
// report, renders it with headless Chromium to a PNG and checks the picture
// (size, not blank, every decision kind of the flight on the timeline, every
// kind acted on in the action lane). It
// skips where no chromium is installed. It has no code of its own and must
// not grow any.
package browser
