/**
 * The numbers of the InfiniBand verbs model, with rdma-core's values: work-request and completion
 * opcodes, completion statuses, QP types, states and attribute masks, access, send and completion
 * flags, MTUs, async events, memory-registration and FLUSH parameters, and the Linux errnos jrxe
 * reports. Each class mirrors one libibverbs (or mlx5dv) enum, its constants named after the C
 * enumerators without their prefix: {@link dev.jrxe.ib.WcStatus#RETRY_EXC_ERR} is
 * {@code IBV_WC_RETRY_EXC_ERR}. jrxe's own additions (the SRD QP type, {@link
 * dev.jrxe.ib.WcFlags#UNSOLICITED}) say so.
 *
 * <p>A leaf package every layer may use, so that the transport and the public verbs API speak the
 * same numbers without the transport depending on the API. Its classes hold constants and pure
 * static functions only: safe to use from any thread.
 */
package dev.jrxe.ib;
