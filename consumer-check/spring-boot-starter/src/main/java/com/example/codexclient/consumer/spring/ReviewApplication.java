package com.example.codexclient.consumer.spring;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** A Spring Boot application: its configuration names no CodexClient; the starter provides it. */
@SpringBootApplication
public class ReviewApplication {
    /** Starts the application. */
    public static void main(String[] args) {
        SpringApplication.run(ReviewApplication.class, args);
    }
}
