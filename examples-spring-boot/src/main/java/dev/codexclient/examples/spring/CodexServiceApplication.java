package dev.codexclient.examples.spring;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A service on the codex-client starter: {@code POST /ask} answers a question, {@code GET /stream} streams
 * the answer as Server-Sent Events, {@code /actuator/health} and {@code /actuator/metrics} show the codex
 * app-server's health and the client's meters, and {@code /codex/approvals/} is the inbox where a person
 * decides the approvals codex asks for. Everything about codex is in {@code application.properties}.
 */
@SpringBootApplication
public class CodexServiceApplication {

    /**
     * Starts the service.
     *
     * @param args Spring Boot's arguments
     */
    public static void main(String[] args) {
        SpringApplication.run(CodexServiceApplication.class, args);
    }
}
