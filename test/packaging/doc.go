// Package packaging holds the tests that keep the ROS 2 package files at
// the repository root (package.xml, CMakeLists.txt, colcon.meta, the launch
// file, config/decision.yaml, the SROS2 policy in config/sros2, the
// Dockerfile, compose.yaml) consistent with each other and with the node's
// parameters and topics. It has no code of its own and must not grow any:
// it reads those files as text and never needs ROS 2.
package packaging
