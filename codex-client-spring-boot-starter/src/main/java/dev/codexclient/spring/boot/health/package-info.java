/**
 * The starter's Actuator health indicator on Spring Boot 4.0. Configured only where Spring Boot 4's health types
 * ({@code org.springframework.boot.health.contributor}, module {@code spring-boot-health}) are present.
 */
package dev.codexclient.spring.boot.health;
