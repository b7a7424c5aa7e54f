#!/bin/sh
# Regenerates the golden field files the wire tests compare against: what tshark decodes from
# every RoCE packet of the real rxe captures in ../shared/captures. Run once from the repository
# root (needs tshark); the outputs are committed under src/test/resources/goldens/.
set -eu
CAPTURES=${CAPTURES:-../shared/captures}
OUT=src/test/resources/goldens
mkdir -p "$OUT"
FIELDS="frame.number ip.src ip.dst ip.id ip.flags.df udp.srcport udp.dstport udp.length
 infiniband.bth.opcode infiniband.bth.se infiniband.bth.m infiniband.bth.padcnt infiniband.bth.tver
 infiniband.bth.p_key infiniband.bth.destqp infiniband.bth.a infiniband.bth.reserved7 infiniband.bth.psn
 infiniband.aeth.syndrome infiniband.aeth.msn
 infiniband.reth.va infiniband.reth.r_key infiniband.reth.dmalen
 infiniband.deth.q_key infiniband.deth.srcqp
 infiniband.atomiceth.swapdt infiniband.atomiceth.cmpdt infiniband.atomicacketh.origremdt
 infiniband.immdt infiniband.ieth infiniband.invariant.crc _ws.malformed"
# Upper-layer heuristics (RPCoRDMA & co.) mis-claim small SEND payloads and swallow the ICRC field;
# switched off as ../shared/oracle/roce_check.py does.
ARGS="-n"
for p in rpcordma smc smb_direct nvme-rdma lnet iser infiniband_sdp fcoib infiniband.eoib; do
    ARGS="$ARGS --disable-protocol $p"
done
ARGS="$ARGS --disable-heuristic eth_over_ib"
for f in $FIELDS; do ARGS="$ARGS -e $f"; done
for pcap in "$CAPTURES"/*.pcap; do
    name=$(basename "$pcap" .pcap)
    # shellcheck disable=SC2086
    tshark -r "$pcap" -Y 'udp.port==4791' -T fields -E header=y -E separator=/t -E occurrence=a $ARGS \
        > "$OUT/$name.tsv" 2>/dev/null
    echo "$name: $(($(wc -l < "$OUT/$name.tsv") - 1)) packets"
done
