"""The test harness the suites share (tests/README.md, "harness/"): independent peers and
rigs written from the specifications, sharing no code with what they test. Suites import
shared test code from here, never from another suite; product code never imports it."""
