/**
 * The numbers of the InfiniBand verbs model, with rdma-core's values: work-request and completion
 * opcodes, completion statuses, QP types, states and attribute masks, send flags, MTUs, async
 * events. A leaf package every layer may use, so that the transport and the public verbs API speak
 * the same numbers without the transport depending on the API.
 */
package dev.jrxe.ib;
