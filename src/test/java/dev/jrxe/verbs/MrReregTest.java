package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.ib.Rereg;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** rdma-core test_mr's rereg cases, through traffic. */
class MrReregTest {

    private static SendWr op(RcFixture f, int opcode, long remote, int rkey) {
        SendWr s = new SendWr(1).sge(f.bufA.address(), 8, f.mra.lkey()).rdma(remote, rkey);
        s.opcode = opcode;
        s.sendFlags = SendFlags.SIGNALED;
        return s;
    }

    @Test
    void shouldRefuseAtomicsAfterReregToLocalWriteOnlyAndAllowThemAgainAfter() {
        // test_mr_rereg_atomic: LW|REMOTE_ATOMIC -> LW fails, -> back succeeds (new QPs after the error)
        try (RcFixture f = new RcFixture(8192)) {
            MemoryRegion mr = f.pdb.registerMemory(f.bufB.asSlice(4096, 4096), Access.LOCAL_WRITE | Access.REMOTE_ATOMIC);
            f.connect();
            f.qa.postSend(op(f, WrOpcode.ATOMIC_FETCH_AND_ADD, f.bufB.address() + 4096, mr.rkey()));
            f.pollOk(f.cqa);
            mr.rereg(Rereg.CHANGE_ACCESS, null, null, Access.LOCAL_WRITE);
            f.qa.postSend(op(f, WrOpcode.ATOMIC_FETCH_AND_ADD, f.bufB.address() + 4096, mr.rkey()));
            assertThat(f.poll(f.cqa).status).isEqualTo(WcStatus.REM_ACCESS_ERR);
        }
        try (RcFixture f = new RcFixture(8192)) {
            MemoryRegion mr = f.pdb.registerMemory(f.bufB.asSlice(4096, 4096), Access.LOCAL_WRITE);
            mr.rereg(Rereg.CHANGE_ACCESS, null, null, Access.LOCAL_WRITE | Access.REMOTE_ATOMIC);
            f.connect();
            f.bufB.set(ValueLayout.JAVA_LONG, 4096, 41);
            f.qa.postSend(op(f, WrOpcode.ATOMIC_FETCH_AND_ADD, f.bufB.address() + 4096, mr.rkey()));
            f.pollOk(f.cqa);
            assertThat(f.bufA.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(41);
        }
    }

    @Test
    void shouldAllowRemoteWriteAfterReregAccessAndRefuseItAfterTakingItAway() {
        // test_mr_rereg_access and test_mr_rereg_access_bad_flow
        try (RcFixture f = new RcFixture(8192)) {
            MemoryRegion mr = f.pdb.registerMemory(f.bufB.asSlice(4096, 4096), Access.LOCAL_WRITE);
            mr.rereg(Rereg.CHANGE_ACCESS, null, null, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            f.connect();
            f.qa.postSend(op(f, WrOpcode.RDMA_WRITE, f.bufB.address() + 4096, mr.rkey()));
            f.pollOk(f.cqa);
            mr.rereg(Rereg.CHANGE_ACCESS, null, null, Access.LOCAL_WRITE);
            f.qa.postSend(op(f, WrOpcode.RDMA_WRITE, f.bufB.address() + 4096, mr.rkey()));
            assertThat(f.poll(f.cqa).status).isEqualTo(WcStatus.REM_ACCESS_ERR);
        }
    }

    @Test
    void shouldFailTrafficIntoARegionMovedToAnotherPdAndWorkWhenMovedBack() {
        // test_mr_rereg_pd: a receive buffer whose MR moved to another PD -> 'Remote operation error'
        try (RcFixture f = new RcFixture(8192)) {
            f.connect();
            ProtectionDomain other = f.b.allocPd();
            f.mrb.rereg(Rereg.CHANGE_PD, other, null, 0);
            f.qb.postRecv(new RecvWr(1).sge(f.bufB.address(), 64, f.mrb.lkey()));
            f.qa.postSend(new SendWr(1).sge(f.bufA.address(), 64, f.mra.lkey()));
            assertThat(f.poll(f.cqa).status).isEqualTo(WcStatus.REM_OP_ERR);
            assertThat(f.poll(f.cqb).status).isEqualTo(WcStatus.LOC_PROT_ERR);
        }
        try (RcFixture f = new RcFixture(8192)) {
            ProtectionDomain other = f.b.allocPd();
            f.mrb.rereg(Rereg.CHANGE_PD, other, null, 0);
            f.mrb.rereg(Rereg.CHANGE_PD, f.pdb, null, 0);
            f.connect();
            f.qb.postRecv(new RecvWr(1).sge(f.bufB.address(), 64, f.mrb.lkey()));
            SendWr s = new SendWr(1).sge(f.bufA.address(), 64, f.mra.lkey());
            s.sendFlags = SendFlags.SIGNALED;
            f.qa.postSend(s);
            assertThat(f.pollOk(f.cqb).byteLen).isEqualTo(64);
            f.pollOk(f.cqa);
        }
    }
}
