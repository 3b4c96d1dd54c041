package dev.converge.provisioning.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.converge.provisioning.Provisioning;

/** What API extensions get: the service, the tenant authenticator and the API's JSON mapper. */
public record ApiContext(Provisioning service, Authenticator authenticator, ObjectMapper json) {
}
