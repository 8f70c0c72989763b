/**
 * The starter's Actuator health indicator on Spring Boot 3.5. Configured only where Spring Boot 3's health types
 * ({@code org.springframework.boot.actuate.health}) are present.
 */
package dev.codexclient.spring.boot.actuate;
