/**
 * The transport: what a NIC does between the verbs and the wire. Per QP type a requester (turns
 * send work requests into packets), a responder (executes inbound requests, sends ACKs, NAKs and
 * read responses) and a completer (processes ACKs and responses, retransmits, posts send
 * completions), as Linux rxe splits them. One {@link dev.jrxe.transport.Engine} per device owns
 * the link and runs them; application threads drive it when they poll, a background thread when
 * they do not.
 */
package dev.jrxe.transport;
