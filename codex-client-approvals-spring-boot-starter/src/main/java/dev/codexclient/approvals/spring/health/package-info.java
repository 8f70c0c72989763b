/** The inbox's health indicator on Spring Boot 4.0. */
package dev.codexclient.approvals.spring.health;
