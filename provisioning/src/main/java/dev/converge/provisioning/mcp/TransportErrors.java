package dev.converge.provisioning.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/**
 * The MCP transport's error answers, made short: the SDK writes a refused request (malformed JSON,
 * a missing {@code Accept}, another content type) as its serialized exception, stack trace, class
 * names and server frames included. This response holds back any body written under a status of
 * 400 or more and writes in its place a JSON-RPC error: {@code {"jsonrpc":"2.0","id":null,"error":
 * {"code":...,"message":...}}}, the code and message the SDK chose (the message cut at 200
 * characters), nothing else. Successful answers and event streams pass through untouched.
 */
final class TransportErrors extends HttpServletResponseWrapper {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int INVALID_REQUEST = -32600;

    private int status = SC_OK;
    private ByteArrayOutputStream held;
    private PrintWriter heldWriter;

    TransportErrors(HttpServletResponse response) {
        super(response);
    }

    @Override
    public void setStatus(int sc) {
        status = sc;
        super.setStatus(sc);
    }

    @Override
    public void sendError(int sc, String msg) throws IOException {
        sendError(sc);
    }

    @Override
    public void sendError(int sc) throws IOException {
        setStatus(sc);
        hold();
    }

    private boolean holding() {
        return status >= 400;
    }

    private ByteArrayOutputStream hold() {
        if (held == null) {
            held = new ByteArrayOutputStream();
        }
        return held;
    }

    @Override
    public PrintWriter getWriter() throws IOException {
        if (!holding()) {
            return super.getWriter();
        }
        if (heldWriter == null) {
            heldWriter = new PrintWriter(new OutputStreamWriter(hold(), StandardCharsets.UTF_8), true);
        }
        return heldWriter;
    }

    @Override
    public ServletOutputStream getOutputStream() throws IOException {
        if (!holding()) {
            return super.getOutputStream();
        }
        ByteArrayOutputStream buffer = hold();
        return new ServletOutputStream() {
            @Override
            public void write(int b) {
                buffer.write(b);
            }

            @Override
            public boolean isReady() {
                return true;
            }

            @Override
            public void setWriteListener(WriteListener listener) {
                throw new UnsupportedOperationException("an error answer is written at once");
            }
        };
    }

    /** Writes the short error in place of what was held back; nothing if no error was answered. */
    void finish() throws IOException {
        if (held == null) {
            return;
        }
        if (heldWriter != null) {
            heldWriter.flush();
        }
        int code = INVALID_REQUEST;
        String message = "Invalid request";
        try {
            JsonNode said = JSON.readTree(held.toByteArray()).path("jsonRpcError");
            if (said.path("code").isInt()) {
                code = said.path("code").asInt();
            }
            if (said.path("message").isTextual() && !said.path("message").asText().isBlank()) {
                String m = said.path("message").asText().strip();
                message = m.length() > 200 ? m.substring(0, 200) : m;
            }
        } catch (IOException | RuntimeException notJson) {
            // keep the generic error
        }
        ObjectNode body = JSON.createObjectNode().put("jsonrpc", "2.0").putNull("id");
        body.putObject("error").put("code", code).put("message", message);
        byte[] bytes = JSON.writeValueAsBytes(body);
        HttpServletResponse real = (HttpServletResponse) getResponse();
        real.setContentType("application/json");
        real.setContentLength(bytes.length);
        real.getOutputStream().write(bytes);
    }
}
