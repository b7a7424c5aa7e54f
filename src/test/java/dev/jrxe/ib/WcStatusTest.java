package dev.jrxe.ib;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import org.junit.jupiter.api.Test;

class WcStatusTest {
    @Test
    void shouldNameEveryStatusAsItsConstant() throws Exception {
        int constants = 0;
        for (Field f : WcStatus.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class) {
                assertThat(WcStatus.name(f.getInt(null))).isEqualTo(f.getName());
                constants++;
            }
        }
        assertThat(constants).isEqualTo(22);
        assertThat(WcStatus.name(99)).isEqualTo("99");
    }

    @Test
    void shouldGiveIbvWcStatusStrTexts() {
        assertThat(WcStatus.str(WcStatus.RETRY_EXC_ERR)).isEqualTo("transport retry counter exceeded");
        assertThat(WcStatus.str(WcStatus.WR_FLUSH_ERR)).isEqualTo("Work Request Flushed Error");
        assertThat(WcStatus.str(-1)).isEqualTo("unknown");
    }
}
