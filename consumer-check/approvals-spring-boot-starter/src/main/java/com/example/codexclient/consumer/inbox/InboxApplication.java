package com.example.codexclient.consumer.inbox;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** A Spring Boot application whose approvals wait for a person: the inbox's starter is all it adds. */
@SpringBootApplication
public class InboxApplication {
    /** Starts the application. */
    public static void main(String[] args) {
        SpringApplication.run(InboxApplication.class, args);
    }
}
