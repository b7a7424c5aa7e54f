/**
 * Deterministic simulation: several jrxe devices in one thread, on a virtual clock, over an
 * in-memory network with seeded faults, under a random workload checked against an oracle. The
 * devices run the production code; the only seams are the clock, the link, the seed of what they
 * draw at random, and who runs them (manual progress). A run is a function of its seed; a failing
 * run's fault schedule can be replayed and shrunk. See docs/RELIABILITY.md.
 */
package dev.jrxe.sim;
