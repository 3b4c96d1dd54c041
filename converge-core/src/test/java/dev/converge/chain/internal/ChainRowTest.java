package dev.converge.chain.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.converge.ConvergeException;
import dev.converge.batch.internal.BatchSpec;
import dev.converge.batch.internal.JobSpec;
import dev.converge.chain.ChainProgress;
import dev.converge.chain.ChainState;
import dev.converge.queue.internal.JsonCodec;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChainRowTest {
    private static final ObjectMapper JSON = JsonCodec.shared();

    private static JobSpec job(String kind, String payload) {
        return new JobSpec("q", kind, payload, 3, null, 0, null);
    }

    private static ChainStore.ChainRow row(List<LinkSpec> links, JobSpec catchJob) throws Exception {
        ChainProgress p = new ChainProgress(7, "c", ChainState.RUNNING, 0, links.size(), 11L, Instant.EPOCH, null);
        return new ChainStore.ChainRow(p, JSON.writeValueAsString(links), catchJob == null ? null : catchJob.toJson(),
                null);
    }

    @Test
    void eachLinkDecodedAloneIsTheLinkAsStored() throws Exception {
        // a batch first (nested objects and lists to skip), payloads holding brackets and quotes, then plain jobs
        List<LinkSpec> links = List.of(
                new LinkSpec(null, new BatchSpec("b", List.of(job("a", "{\"x\":[1,{\"y\":\"]}\"}]}"), job("b", "[]"),
                        job("c", "\"}\"")), job("then", "{}"), null, null, false)),
                new LinkSpec(job("d", "{\"site\":\"s-1\",\"n\":[1,2,3]}"), null),
                new LinkSpec(job("e", "null"), null));
        ChainStore.ChainRow row = row(links, job("catch", "{}"));

        for (int i = 0; i < links.size(); i++) {
            assertThat(row.link(i)).as("link %d", i).isEqualTo(links.get(i));
        }
        assertThat(row.catchJob()).isEqualTo(job("catch", "{}"));
        assertThat(row.finallyJob()).isNull();
    }

    @Test
    void aPositionPastTheLastLinkIsAnErrorNotANull() throws Exception {
        ChainStore.ChainRow row = row(List.of(new LinkSpec(job("d", "{}"), null)), null);

        assertThatThrownBy(() -> row.link(1)).isInstanceOf(ConvergeException.class).hasMessageContaining("1 links, none at 1");
    }
}
