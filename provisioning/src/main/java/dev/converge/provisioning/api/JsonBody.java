package dev.converge.provisioning.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Locale;

/**
 * Reads a request body as one JSON object, within the size limit: too large is 413 (decided from
 * Content-Length when declared, else while reading, so an endless body is never buffered), not
 * JSON is 400, JSON that is not an object is 400, a non-JSON content type is 415.
 */
final class JsonBody {
    private final ObjectMapper json;
    /** How much of a too-large body is read and dropped so the client reliably gets its 413. */
    static final long DISCARD_AT_MOST = 1024 * 1024;

    private final int maxBytes;

    JsonBody(ObjectMapper json, int maxBytes) {
        this.json = json;
        this.maxBytes = maxBytes;
    }

    ObjectNode read(Context ctx) {
        String type = ctx.contentType();
        if (type != null && !isJson(type)) {
            throw new ApiProblem(ProblemType.UNSUPPORTED_MEDIA_TYPE, "Send the body as application/json.");
        }
        byte[] bytes = bytes(ctx);
        if (bytes.length == 0) {
            throw new ApiProblem(ProblemType.MALFORMED_JSON, "The request body is empty; expected a JSON object.");
        }
        JsonNode node;
        try {
            node = json.readTree(bytes);
        } catch (JsonProcessingException e) {
            var at = e.getLocation();
            String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
            throw new ApiProblem(ProblemType.MALFORMED_JSON, "The request body is not valid JSON" + where + ".");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (!(node instanceof ObjectNode object)) {
            throw new ApiProblem(ProblemType.INVALID_BODY, "The request body must be a JSON object.");
        }
        return object;
    }

    private byte[] bytes(Context ctx) {
        long declared = ctx.req().getContentLengthLong();
        if (declared > maxBytes) {
            if (declared <= maxBytes + DISCARD_AT_MOST) {
                discard(ctx, declared);
            }
            throw tooLarge();
        }
        try (InputStream in = ctx.bodyInputStream()) {
            byte[] read = in.readNBytes(maxBytes + 1);
            if (read.length > maxBytes) {
                discardRest(in, DISCARD_AT_MOST);
                throw tooLarge();
            }
            return read;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /*
     * A 413 sent while the body is still arriving is often never seen: the server closes the connection
     * with unread bytes in its socket, the kernel answers with a reset, and the reset discards the
     * response in the client's buffer. So a body up to DISCARD_AT_MOST past the limit is read and dropped
     * first (the connection stays usable); a larger one is answered at once and the connection closed,
     * as any server must.
     */
    private static void discard(Context ctx, long declared) {
        try (InputStream in = ctx.bodyInputStream()) {
            discardRest(in, declared);
        } catch (IOException e) {
            // the client went away; the 413 is still the answer
        }
    }

    private static void discardRest(InputStream in, long atMost) {
        byte[] sink = new byte[8192];
        long left = atMost;
        try {
            int n;
            while (left > 0 && (n = in.read(sink, 0, (int) Math.min(sink.length, left))) >= 0) {
                left -= n;
            }
        } catch (IOException e) {
            // the client went away; the 413 is still the answer
        }
    }

    private ApiProblem tooLarge() {
        return new ApiProblem(ProblemType.PAYLOAD_TOO_LARGE, "The request body exceeds " + maxBytes + " bytes.")
                .with("max_bytes", maxBytes);
    }

    private static boolean isJson(String contentType) {
        String media = contentType.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
        return media.equals("application/json") || (media.startsWith("application/") && media.endsWith("+json"));
    }
}
