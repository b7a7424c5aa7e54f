/*
 * What one UDP send or receive system call costs here, by the call jrxe makes and the calls a
 * plain program makes (docs/BENCHMARKS.md, "Where the time goes"). Two sockets on 127.0.0.2 and
 * 127.0.0.3; every round sends one datagram and receives it, the calls of the kind measured
 * taking turns round by round, so that a machine that drifts drifts for all of them alike.
 *
 *   gcc -O2 -o /tmp/udp-call-cost scripts/udp-call-cost.c && /tmp/udp-call-cost 24 && /tmp/udp-call-cost 4112
 *
 * Prints the median and the 90th percentile, in ns, of each call around the time it took.
 * send: sendmmsg of one message and sendmsg and sendto, all unconnected with DF (as jrxe sends),
 * and send on a connected socket (as the raw baseline of `jrxe bench pingpong` writes).
 * receive (UDP_GRO on, as jrxe's socket): recvmmsg of up to 8 (jrxe's) and of 1, recvmsg, recvfrom.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#ifndef UDP_GRO
#define UDP_GRO 104
#endif
#ifndef SOL_UDP
#define SOL_UDP 17
#endif

#define ROUNDS 100000
#define SKIP 10000
#define KINDS 4

static long nanos(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
    long x = *(const long *) a, y = *(const long *) b;
    return x < y ? -1 : x > y;
}

static int bound(const char *ip, int port) {
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    inet_pton(AF_INET, ip, &a.sin_addr);
    if (s < 0 || bind(s, (struct sockaddr *) &a, sizeof a) != 0) {
        perror("bind");
        exit(1);
    }
    int pmtu = IP_PMTUDISC_DO;
    setsockopt(s, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof pmtu);
    return s;
}

static void report(const char *what, long *t, int n, int size) {
    qsort(t, n, sizeof(long), by_value);
    printf("%5d B  %-14s median %5ld ns  p90 %5ld ns\n", size, what, t[n / 2], t[n * 9 / 10]);
}

int main(int argc, char **argv) {
    int size = argc > 1 ? atoi(argv[1]) : 24;
    if (size < 1 || size > 65000) {
        fprintf(stderr, "usage: %s [datagram bytes, 1..65000]\n", argv[0]);
        return 2;
    }
    int tx = bound("127.0.0.2", 30001), txc = bound("127.0.0.2", 30003), rx = bound("127.0.0.3", 30002);
    int one = 1;
    setsockopt(rx, SOL_UDP, UDP_GRO, &one, sizeof one);
    struct sockaddr_in peer = {.sin_family = AF_INET, .sin_port = htons(30002)};
    inet_pton(AF_INET, "127.0.0.3", &peer.sin_addr);
    connect(txc, (struct sockaddr *) &peer, sizeof peer);

    static char out[65536], in[8][65536], control[8][64];
    memset(out, 0x7b, sizeof out);
    struct iovec oiov = {out, size};
    struct mmsghdr om = {0};
    om.msg_hdr.msg_name = &peer;
    om.msg_hdr.msg_namelen = sizeof peer;
    om.msg_hdr.msg_iov = &oiov;
    om.msg_hdr.msg_iovlen = 1;
    struct mmsghdr im[8];
    struct iovec iiov[8];
    struct sockaddr_in from[8];

    static long sendt[KINDS][ROUNDS], recvt[KINDS][ROUNDS];
    const char *sends[KINDS] = {"sendmmsg(1)", "sendmsg", "sendto", "send connected"};
    const char *recvs[KINDS] = {"recvmmsg(8)", "recvmmsg(1)", "recvmsg", "recvfrom"};
    for (int r = 0; r < KINDS * (ROUNDS + SKIP); r++) {
        int k = r % KINDS;
        long t0 = nanos();
        long sent = k == 0 ? sendmmsg(tx, &om, 1, 0)
            : k == 1 ? (sendmsg(tx, &om.msg_hdr, 0) == size)
            : k == 2 ? (sendto(tx, out, size, 0, (struct sockaddr *) &peer, sizeof peer) == size)
            : (send(txc, out, size, 0) == size);
        long t1 = nanos();
        if (sent != 1) {
            perror("send");
            return 1;
        }
        int vlen = k == 0 ? 8 : 1;
        for (int i = 0; i < vlen; i++) {
            memset(&im[i], 0, sizeof im[i]);
            iiov[i].iov_base = in[i];
            iiov[i].iov_len = sizeof in[i];
            im[i].msg_hdr.msg_iov = &iiov[i];
            im[i].msg_hdr.msg_iovlen = 1;
            im[i].msg_hdr.msg_name = &from[i];
            im[i].msg_hdr.msg_namelen = sizeof from[i];
            im[i].msg_hdr.msg_control = control[i];
            im[i].msg_hdr.msg_controllen = sizeof control[i];
        }
        long t2 = nanos();
        long got = k <= 1 ? recvmmsg(rx, im, vlen, MSG_DONTWAIT, NULL)
            : k == 2 ? (recvmsg(rx, &im[0].msg_hdr, MSG_DONTWAIT) == size)
            : (recvfrom(rx, in[0], sizeof in[0], MSG_DONTWAIT, NULL, NULL) == size);
        long t3 = nanos();
        if (got != 1) {
            fprintf(stderr, "round %d: the datagram was not there (%ld)\n", r, got);
            return 1;
        }
        if (r >= KINDS * SKIP) {
            sendt[k][r / KINDS - SKIP] = t1 - t0;
            recvt[k][r / KINDS - SKIP] = t3 - t2;
        }
    }
    for (int k = 0; k < KINDS; k++) {
        report(sends[k], sendt[k], ROUNDS, size);
    }
    for (int k = 0; k < KINDS; k++) {
        report(recvs[k], recvt[k], ROUNDS, size);
    }
    return 0;
}
